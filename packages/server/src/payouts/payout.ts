import type { Kysely, Transaction } from 'kysely';
import type { ChainRegistry, TokenInfo } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import type { TransferCrashPoint } from './crashPoint.ts';

/**
 * A transfer from the collector that one row of the service stands for: a settlement batch, an on-chain refund, an
 * unsolicited transfer sent back.
 */
export interface Payout {
  /** The row's id; the chain layer's journals reference the transfer by it. */
  id: string;
  /** CAIP-10 account the transfer pays. */
  destination: string;
  /** Minor units of the token. */
  amount: bigint;
}

/**
 * The rows one kind of payout is recorded in, moved along inside the transaction that journals its transfer, so a
 * crash at any point leaves either no transfer and an open row, or a journaled transfer the row is linked to.
 */
export interface PayoutBook {
  /** The journals' purpose of these transfers. */
  purpose: 'settlement' | 'refund' | 'inflow_return';
  /** Whether a transfer not journaled yet must wait; asked before the chain is, and again with the row locked. */
  held(db: Kysely<Database>, payoutId: string): Promise<boolean>;
  /** Locks the row while its transfer is still to be made or followed; false when another process has it or it is done. */
  lock(trx: Transaction<Database>, payoutId: string): Promise<boolean>;
  /**
   * Its transfer is journaled: `journaledNow` in the transaction that journals it, false when a later round finds
   * the journal entry made before (after a crash between the two, for instance).
   */
  markSent(trx: Transaction<Database>, payoutId: string, now: Date, journaledNow: boolean): Promise<void>;
  /** Its transfers failed on chain: nothing left the collector. */
  fail(trx: Transaction<Database>, payoutId: string, reason: string, now: Date): Promise<void>;
  /** Its transfer landed before its end was applied with it: applies it now; false when that was done already. */
  complete(db: Db, payoutId: string, hash: string): Promise<boolean>;
}

export interface PayoutSenderContext {
  db: Db;
  chains: ChainRegistry;
  services: ChainServices;
  clock: Clock;
  /** Test-only: stop the process at this point of a transfer (see crashPoint.ts). */
  crashAt?: TransferCrashPoint;
}

/**
 * The state of a network a balance is read at: a block, by number, on EVM; a commitment on Solana (whose reads
 * have no block to name).
 */
export type ChainReadPoint = { block: bigint } | { commitment: 'confirmed' | 'finalized' };

/** How the collector pays on the networks of one namespace. */
export interface PayoutSender {
  /** Whether this process can send the token. */
  canSend(token: TokenInfo): boolean;
  /**
   * What the collector holds of the token (or the network's native coin), in minor units: at `at` (of this
   * namespace's kind), else now (the head on EVM, `confirmed` on Solana).
   */
  collectorHolds(token: TokenInfo, at?: ChainReadPoint): Promise<bigint>;
  /**
   * Journals the payout's transfer unless it has one, and sends it; the network's follower applies its end once it
   * is final. Returns whether the payout turned out complete already.
   */
  drive(payout: Payout, token: TokenInfo, book: PayoutBook): Promise<boolean>;
}
