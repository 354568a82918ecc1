import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** A Solana Pay transfer request of a payment in one token (migration 0026). */
export interface SolanaPayRequestsTable {
  /** The reference key: a fresh ed25519 public key, unique across payments. */
  reference: string;
  payment_id: string;
  network: string;
  /** CAIP-19 id of the token. */
  asset: string;
  mint: string;
  decimals: number;
  recipient: string;
  /** Token minor units; numeric arrives as a string. */
  amount: ColumnType<string, string | bigint, string | bigint>;
  created_at: Generated<Date>;
}

export type SolanaPayOutcome =
  | 'paid'
  | 'wrong_amount'
  | 'wrong_mint'
  | 'wrong_recipient'
  | 'no_transfer'
  | 'payment_closed'
  | 'held';

/** A transaction found carrying a request's reference, and what it did for the payment. */
export interface SolanaPayTransfersTable {
  signature: string;
  network: string;
  reference: string;
  payment_id: string;
  outcome: SolanaPayOutcome;
  buyer: string | null;
  mint: string | null;
  amount: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  slot: ColumnType<string, string | bigint, string | bigint>;
  created_at: Generated<Date>;
}

export interface SolanaPayCursorsTable {
  network: string;
  account: string;
  last_signature: string;
  updated_at: Generated<Date>;
}

/** How far a network's Solana Pay follower has read, while a payment's expiry waits for it (migration 0039). */
export interface SolanaPayReadThroughTable {
  network: string;
  /** Every transaction made before this time is read. */
  read_through: Date;
  updated_at: Generated<Date>;
}

/** A transaction the collector signed as fee payer for a transaction request, handed out once recorded (0046). */
export interface SolanaPayCosignedTransactionsTable {
  /** The collector's signature: the transaction's id. */
  signature: string;
  network: string;
  reference: string;
  payment_id: string;
  /** The account the transaction pays from, which signs it. */
  account: string;
  /** The transaction can land while the network's block height is at most this. */
  last_valid_block_height: ColumnType<string, string | bigint, string | bigint>;
  /** Its fee is still reserved out of the operator's funding: not entered yet as landed or expired (0055). */
  fee_open: Generated<boolean>;
  created_at: Generated<Date>;
}

export type SolanaPayTables = {
  solana_pay_requests: SolanaPayRequestsTable;
  solana_pay_transfers: SolanaPayTransfersTable;
  solana_pay_cursors: SolanaPayCursorsTable;
  solana_pay_read_through: SolanaPayReadThroughTable;
  solana_pay_cosigned_transactions: SolanaPayCosignedTransactionsTable;
};

/** The service's database with the Solana Pay tables. */
export type SolanaPayDb = Kysely<Database & SolanaPayTables>;

export function withSolanaPayTables(db: Kysely<Database>): SolanaPayDb;
export function withSolanaPayTables(db: Transaction<Database>): Transaction<Database & SolanaPayTables>;
export function withSolanaPayTables(db: Kysely<Database> | Transaction<Database>) {
  return db.withTables<SolanaPayTables>();
}
