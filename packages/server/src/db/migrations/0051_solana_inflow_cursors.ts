import { type Kysely, sql } from 'kysely';

/**
 * The collector-inflow follower on Solana reads the signatures of each account of the collector (its own, for SOL,
 * and its token account of each listed mint): its read position per account is the newest signature it read.
 * `collector_inflows` takes Solana's transfers too: `tx_hash` is the signature, `block_number` the slot, and
 * `log_index` -1 for SOL or the index of the collector's token account among the transaction's keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE solana_inflow_cursors (
      network text NOT NULL,
      account text NOT NULL,
      last_signature text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (network, account)
    );
  `.execute(db);
}
