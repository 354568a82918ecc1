import type { ChainFollower } from './chainFollowers.ts';
import type { NetworkInfo, TokenInfo } from './registry.ts';
import type { TransferOutcomeHandler } from './transferOutcomes.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../log.ts';

/** What one read of a network tells about the buyers' ability to pay in each token. */
export interface Payability {
  /** Whether `owner` can complete a payment of `amount` in `token`, gas included where the buyer pays it. */
  canPay(owner: string, token: TokenInfo, amount: bigint): boolean;
  /** Whether a Permit2 payment of `amount` needs the buyer's approval first. */
  needsApproval(owner: string, token: TokenInfo, amount: bigint): boolean;
}

/** What every namespace's chain services are built from. */
export interface ChainAdapterOptions {
  db: Db;
  /** The networks of the adapter's namespace that this process has a node for. */
  networks: NetworkInfo[];
  /** What a journaled transfer's end means for the service, applied in the transaction that records it. */
  onFinal: TransferOutcomeHandler;
  clock: { now(): Date };
  log: Logger;
}

/**
 * The chain services of one namespace (EVM, Solana): its collector, how it sends and journals transactions, and
 * what every namespace offers the rest of the service in the same shape: one follower per network, and one batched
 * read of what buyers can pay. Payment methods and settlement senders build their transfers on top of it.
 */
export interface ChainAdapter {
  /** One per network; ChainFollowers runs each in one process at a time. */
  followers: ChainFollower[];
  /** What the owners can pay in the network's tokens, in one batched read; null without a node for the network. */
  payability(network: NetworkInfo, owners: string[], tokens: TokenInfo[]): Promise<Payability | null>;
}

export const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);
