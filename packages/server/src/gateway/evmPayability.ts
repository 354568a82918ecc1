import type { Address, PublicClient } from 'viem';
import { NATIVE_TRANSFER_GAS, readBalances, readPermit2Allowances } from '../chains/evm/index.ts';
import type { TokenInfo } from '../chains/registry.ts';

/** Gas of an ERC-20 `approve` (about 46,000 for common tokens), with room for tokens that spend more. */
const APPROVAL_GAS = 100_000n;

/** What one read of an EVM network tells about the buyers' ability to pay in each token. */
export interface EvmPayability {
  /** Whether `owner` can complete a payment of `amount` in `token`, gas included where the buyer pays it. */
  canPay(owner: string, token: TokenInfo, amount: bigint): boolean;
  /** Whether a Permit2 payment of `amount` needs the buyer's approval first. */
  needsApproval(owner: string, token: TokenInfo, amount: bigint): boolean;
}

/**
 * Reads, in one batched round trip, every owner's balance of every token, its native coin balance, its Permit2
 * allowances and the gas price: the service pays the gas of EIP-3009 and Permit2 transfers, but the buyer pays for
 * its own Permit2 approval and native transfer.
 */
export async function readEvmPayability(client: PublicClient, owners: string[], tokens: TokenInfo[]): Promise<EvmPayability> {
  const permit2Tokens = tokens.filter((token) => token.method === 'permit2');
  const [balances, allowances, nativeBalances, gasPrice] = await Promise.all([
    readBalances(client, owners, tokens.filter((token) => token.method !== 'native')),
    readPermit2Allowances(client, owners, permit2Tokens),
    Promise.all(owners.map(async (owner) => [owner.toLowerCase(), await client.getBalance({ address: owner as Address })] as const)),
    client.getGasPrice(),
  ]);
  const nativeOf = new Map(nativeBalances);
  const coins = (owner: string) => nativeOf.get(owner.toLowerCase()) ?? 0n;
  const needsApproval = (owner: string, token: TokenInfo, amount: bigint) => token.method === 'permit2' && allowances.of(owner, token) < amount;
  return {
    needsApproval,
    canPay: (owner, token, amount) => {
      if (token.method === 'native') return coins(owner) >= amount + NATIVE_TRANSFER_GAS * gasPrice;
      if (balances.of(owner, token) < amount) return false;
      return !needsApproval(owner, token, amount) || coins(owner) >= APPROVAL_GAS * gasPrice;
    },
  };
}
