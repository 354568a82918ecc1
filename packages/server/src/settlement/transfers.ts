import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
} from '@solana/kit';
import { getAddMemoInstruction, LEGACY_MEMO_PROGRAM_ADDRESS_V3 } from '@solana-program/memo';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { type Address, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import type { TokenInfo } from '../chains/registry.ts';
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
  const collector = address(request.collector);
  const owner = address(request.destination);
  const mint = address(request.mint);
  const [[source], [destination], { value: latest }] = await Promise.all([
    findAssociatedTokenPda({ owner: collector, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
    findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
    request.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send(),
  ]);
  // Signers here only mark who must sign; the journaled sender adds the collector's signature.
  const collectorSigner = createNoopSigner(collector);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayer(collector, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
    (draft) =>
      appendTransactionMessageInstructions(
        [
          getCreateAssociatedTokenIdempotentInstruction({ payer: collectorSigner, ata: destination, owner, mint }),
          getTransferCheckedInstruction({
            source,
            mint,
            destination,
            authority: collectorSigner,
            amount: request.amount,
            decimals: request.decimals,
          }),
          getAddMemoInstruction({ memo: request.batchId }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3 }),
        ],
        draft,
      ),
  );
  return { transaction: compileTransaction(message), lastValidBlockHeight: latest.lastValidBlockHeight };
}
