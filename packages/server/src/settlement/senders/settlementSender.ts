import type { ChainRegistry, TokenInfo } from '../../chains/registry.ts';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import type { ChainServices } from '../../gateway/chainServices.ts';
import type { TransitionContext } from '../../payments/transitions.ts';
import type { BatchRow } from '../batches.ts';
import type { TransferCrashPoint } from '../crashPoint.ts';

export interface SettlementSenderContext {
  db: Db;
  chains: ChainRegistry;
  services: ChainServices;
  clock: Clock;
  /** What a batch settled here records with its payments' `payment.settled` events. */
  announcer(): Omit<TransitionContext, 'db'>;
  /** Test-only: stop the process at this point of a transfer (see crashPoint.ts). */
  crashAt?: TransferCrashPoint;
}

/** How settlement pays a batch on the networks of one namespace, from the collector. */
export interface SettlementSender {
  /** Whether this process can send the token. */
  canSend(token: TokenInfo): boolean;
  /** What the collector holds of the token now, in minor units. */
  collectorHolds(token: TokenInfo): Promise<bigint>;
  /**
   * Journals the batch's transfer unless it has one and sends it; the network's follower settles the batch once the
   * transfer is final. Returns whether the batch turned out settled already.
   */
  drive(batch: BatchRow, token: TokenInfo): Promise<boolean>;
}
