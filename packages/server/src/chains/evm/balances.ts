import type { Address, PublicClient } from 'viem';
import type { NetworkInfo, TokenInfo } from '../registry.ts';
import { erc20Abi, PERMIT2_ADDRESS } from './abis.ts';

/** Amounts (minor units) per account and token, looked up case-insensitively by address. */
export class AmountsByAccount {
  private readonly amounts = new Map<string, bigint>();

  set(owner: string, token: TokenInfo, amount: bigint): void {
    this.amounts.set(key(owner, token), amount);
  }

  of(owner: string, token: TokenInfo): bigint {
    const amount = this.amounts.get(key(owner, token));
    if (amount === undefined) throw new Error(`no amount read for ${owner} in ${token.caip19}`);
    return amount;
  }
}

function key(owner: string, token: TokenInfo): string {
  return `${owner.toLowerCase()} ${token.caip19}`;
}

/** Reads every pair at once; the batching transport turns them into one JSON-RPC request. */
async function readAll(
  owners: string[],
  tokens: TokenInfo[],
  read: (owner: Address, token: TokenInfo) => Promise<bigint>,
): Promise<AmountsByAccount> {
  const pairs = owners.flatMap((owner) => tokens.map((token) => ({ owner: owner as Address, token })));
  const amounts = await Promise.all(pairs.map(({ owner, token }) => read(owner, token)));
  const result = new AmountsByAccount();
  for (const [index, { owner, token }] of pairs.entries()) result.set(owner, token, amounts[index] as bigint);
  return result;
}

function tokenBalance(client: PublicClient, owner: Address, token: TokenInfo, blockNumber?: bigint): Promise<bigint> {
  if (token.method === 'native') return client.getBalance({ address: owner, blockNumber });
  return client.readContract({
    address: token.address as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
    blockNumber,
  });
}

/**
 * The balance of every owner in every token (native coin included), in one round trip: at `blockNumber` when
 * given (the contract reads of one block are one Multicall3 call), else at the head.
 */
export function readBalances(
  client: PublicClient,
  owners: string[],
  tokens: TokenInfo[],
  blockNumber?: bigint,
): Promise<AmountsByAccount> {
  return readAll(owners, tokens, (owner, token) => tokenBalance(client, owner, token, blockNumber));
}

/**
 * The newest block the service treats as final on the network, from one read of its head: the block at the
 * network's depth (`head - confirmations + 1`; the head itself when confirmations <= 1), as deep as the followers
 * wait before they record a transaction in the ledger.
 */
export async function finalBlockNumber(client: PublicClient, network: NetworkInfo): Promise<bigint> {
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const final = head - BigInt(Math.max(network.confirmations, 1)) + 1n;
  return final > 0n ? final : 0n;
}

/** What every owner lets Permit2 move of every ERC-20 token, in one round trip. Native coins are skipped. */
export function readPermit2Allowances(
  client: PublicClient,
  owners: string[],
  tokens: TokenInfo[],
): Promise<AmountsByAccount> {
  const erc20Tokens = tokens.filter((token) => token.method !== 'native');
  return readAll(owners, erc20Tokens, (owner, token) =>
    client.readContract({
      address: token.address as Address,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [owner, PERMIT2_ADDRESS],
    }),
  );
}
