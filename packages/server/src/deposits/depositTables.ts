import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

type Numeric = ColumnType<string, string | bigint, string | bigint>;

/** The amount a payment's deposit address expects in one token on one network (migration 0027). */
export interface EvmDepositQuotesTable {
  payment_id: string;
  chain: string;
  asset: string;
  address: string;
  amount: Numeric;
  watch_until: Date;
  created_at: Generated<Date>;
}

export type EvmDepositOutcome = 'paid' | 'underpaid' | 'overpaid' | 'wrong_token' | 'paid_late' | 'held';

/** An ERC-20 transfer to a deposit address, at the network's depth, and what it did for its payment. */
export interface EvmDepositsTable {
  chain: string;
  tx_hash: string;
  log_index: number;
  payment_id: string;
  address: string;
  token: string;
  asset: string | null;
  from_address: string;
  amount: Numeric;
  block_number: Numeric;
  block_hash: string;
  outcome: EvmDepositOutcome;
  /**
   * The merchant whose own address received it (an x402 payment's transfer), swept for the merchant; null at a
   * payment's deposit address (migration 0048).
   */
  address_merchant_id: ColumnType<string | null, string | null | undefined, string | null>;
  swept_by: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
}

export interface EvmDepositCursorsTable {
  chain: string;
  next_block: Numeric;
  /** The next block above depth to look at; null until first read. */
  seen_next_block: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  /** The next block whose transfers of any token to open addresses are still to be read; null while it keeps up. */
  recipients_next_block: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  /**
   * The time of a block read at depth: every block made earlier is read (migration 0036). Null until an expired
   * payment waited for it.
   */
  read_through: ColumnType<Date | null, Date | null | undefined, Date | null>;
  updated_at: Generated<Date>;
}

/** A payment made `processing` by a deposit seen above depth, waiting for it to reach depth (migration 0031). */
export interface EvmDepositWaitsTable {
  payment_id: string;
  chain: string;
  asset: string;
  tx_hash: string;
  block_number: Numeric;
  deadline: Date;
  created_at: Generated<Date>;
}

/** The operator's request to move an unlisted token from a deposit address to the collector (migration 0032). */
export interface EvmDepositRecoveriesTable {
  id: string;
  /** The payment whose deposit address holds the token, or (`merchant_id`) the merchant whose own address does. */
  payment_id: ColumnType<string | null, string | null | undefined, string | null>;
  merchant_id: ColumnType<string | null, string | null | undefined, string | null>;
  chain: string;
  token: string;
  requested_at: Generated<Date>;
  sweep_id: ColumnType<string | null, string | null | undefined, string | null>;
  done_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type EvmDepositTables = {
  evm_deposit_quotes: EvmDepositQuotesTable;
  evm_deposits: EvmDepositsTable;
  evm_deposit_cursors: EvmDepositCursorsTable;
  evm_deposit_waits: EvmDepositWaitsTable;
  evm_deposit_recoveries: EvmDepositRecoveriesTable;
};

export type DepositDb = Kysely<Database & EvmDepositTables>;

export function withDepositTables(db: Kysely<Database>): DepositDb;
export function withDepositTables(db: Transaction<Database>): Transaction<Database & EvmDepositTables>;
export function withDepositTables(db: Kysely<Database> | Transaction<Database>) {
  return db.withTables<EvmDepositTables>();
}
