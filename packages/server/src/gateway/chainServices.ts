import type { AddressScreening } from '../screening/addressScreening.ts';
import type { ChainAdapter } from '../chains/chainAdapter.ts';
import type { ChainFollower } from '../chains/chainFollowers.ts';
import type { Namespace } from '../chains/caip.ts';
import type { CollectorKeys } from '../chains/collectorKeys.ts';
import type { EvmChain } from '../chains/evm/evmChain.ts';
import type { PriceSource } from '../chains/prices/priceSource.ts';
import type { NetworkInfo } from '../chains/registry.ts';
import type { SolanaChain } from '../chains/solana/solanaChain.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../log.ts';

/**
 * The chain services payments and settlements go through: one adapter per namespace, each with its collector and
 * senders, the prices, and the followers.
 */
export interface ChainServices {
  prices: PriceSource;
  evm: EvmChain;
  solana: SolanaChain;
  /** How often a confirmed payment's submission is tried (with backoff) before the payment is marked failed. */
  submitMaxAttempts: number;
  /** How long a payment waits for a transaction the buyer sends itself (a native transfer, a Permit2 approval) to be mined. */
  buyerTransferDeadlineMs: number;
  /** One follower per network, which moves every open transaction of that network forward (see ChainFollowers). */
  followers: ChainFollower[];
}

export interface ChainServicesOptions {
  db: Db;
  networks: NetworkInfo[];
  keys: CollectorKeys;
  prices: PriceSource;
  /** Attempts of a payment's submission (retried with exponential backoff); 25 unless given. */
  submitMaxAttempts?: number;
  /** How long a buyer's own transfer named by a confirm may take to be mined; 15 minutes unless given. */
  buyerTransferDeadlineMs?: number;
  /** Links in the events of payment changes name the service's base URL, known once it listens. */
  baseUrl?: () => string;
  clock?: { now(): Date };
  log?: Logger;
  /** Screens the senders of transfers that pay without a confirm (deposit addresses); unscreened without it. */
  screening?: AddressScreening;
}

/** The namespace's chain adapter, for what every namespace offers alike; a namespace without one does not compile. */
export function chainAdapterOf(services: ChainServices, namespace: Namespace): ChainAdapter {
  const adapters: { [N in Namespace]: ChainAdapter } = { eip155: services.evm, solana: services.solana };
  return adapters[namespace];
}
