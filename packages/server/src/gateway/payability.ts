import type { Address } from 'viem';
import type { Namespace } from '../chains/caip.ts';
import { type EvmClients, NATIVE_TRANSFER_GAS, readBalances, readPermit2Allowances } from '../chains/evm/index.ts';
import type { NetworkInfo, TokenInfo } from '../chains/registry.ts';
import { readSolanaBalances } from '../chains/solana/readSolanaBalances.ts';
import type { GatewayServices } from './services.ts';

/** Gas of an ERC-20 `approve` (about 46,000 for common tokens), with room for tokens that spend more. */
const APPROVAL_GAS = 100_000n;

/** What one read of a network tells about the buyers' ability to pay in each token. */
export interface Payability {
  /** Whether `owner` can complete a payment of `amount` in `token`, gas included where the buyer pays it. */
  canPay(owner: string, token: TokenInfo, amount: bigint): boolean;
  /** Whether a Permit2 payment of `amount` needs the buyer's approval first. */
  needsApproval(owner: string, token: TokenInfo, amount: bigint): boolean;
}

/**
 * Reads, in one batched round trip, every owner's balance of every token, its native coin balance and its Permit2
 * allowances, and takes the network's current fees: the service pays the gas of EIP-3009 and Permit2 transfers,
 * but the buyer pays for its own Permit2 approval and native transfer, and a node accepts a transaction only from
 * an account that holds its value plus its gas at the maximum fee.
 */
async function readEvmPayability(clients: EvmClients, network: NetworkInfo, owners: string[], tokens: TokenInfo[]): Promise<Payability> {
  const client = clients.for(network);
  const permit2Tokens = tokens.filter((token) => token.method === 'permit2');
  const [balances, allowances, nativeBalances, { maxFeePerGas: gasPrice }] = await Promise.all([
    readBalances(client, owners, tokens.filter((token) => token.method !== 'native')),
    readPermit2Allowances(client, owners, permit2Tokens),
    Promise.all(owners.map(async (owner) => [owner.toLowerCase(), await client.getBalance({ address: owner as Address })] as const)),
    clients.currentFees(network),
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

/**
 * Per namespace, one batched read of what the owners can pay in the network's tokens; null when this process has no
 * node for the network.
 */
export const readPayability: {
  [N in Namespace]: (services: GatewayServices, network: NetworkInfo, owners: string[], tokens: TokenInfo[]) => Promise<Payability | null>;
} = {
  eip155: (services, network, owners, tokens) => readEvmPayability(services.evm.clients, network, owners, tokens),
  solana: async (services, network, owners, tokens) => {
    const solana = services.solana.networks.get(network.caip2);
    if (!solana) return null;
    const balances = await readSolanaBalances(solana.rpc, owners, tokens.map((token) => token.address));
    return {
      canPay: (owner, token, amount) => (balances[owner]?.tokens[token.address] ?? 0n) >= amount,
      needsApproval: () => false,
    };
  },
};
