import type { Transaction } from '@solana/kit';
import { type Address, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import type { TokenInfo } from '../chains/registry.ts';
import { buildSplTransfer } from '../chains/solana/buildSponsoredTransfer.ts';
import type { SolanaRpc } from '../chains/solana/rpc.ts';

/** The call that pays `amount` of an EVM token (or the native coin) to `to` from the sender. */
export function evmTransferCall(
  token: TokenInfo,
  to: Address,
  amount: bigint,
): { to: Address; data?: Hex; value?: bigint } {
  if (token.method === 'native') return { to, value: amount };
  return {
    to: token.address as Address,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
  };
}

export interface SolanaSettlementTransfer {
  /** Compiled with empty signature slots; the collector, fee payer and only signer, signs it when it is journaled. */
  transaction: Transaction;
  lastValidBlockHeight: bigint;
}

/**
 * A transfer of `amount` of an SPL token from the collector's associated token account to the destination owner's,
 * creating the destination's account when missing (the collector pays its rent), with the batch id as memo.
 */
export async function buildSolanaSettlementTransfer(request: {
  rpc: SolanaRpc;
  collector: string;
  destination: string;
  mint: string;
  decimals: number;
  amount: bigint;
  batchId: string;
}): Promise<SolanaSettlementTransfer> {
  const { transaction, lastValidBlockHeight } = await buildSplTransfer({
    ...request,
    from: request.collector,
    to: request.destination,
    memo: request.batchId,
  });
  return { transaction, lastValidBlockHeight };
}
