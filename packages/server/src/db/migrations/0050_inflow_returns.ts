import { type Kysely, sql } from 'kysely';

/**
 * An unsolicited transfer into the collector can be sent back to its sender by the service (`paygate inflows
 * return`): each try is a payout of its own, `<inflow id>/<try>`, journaled and followed like a refund; a failed try
 * leaves the value owed to the sender again, to be tried once more.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE collector_inflows
      ADD COLUMN return_status text CHECK (return_status IN ('pending', 'returned', 'failed')),
      ADD COLUMN return_try integer NOT NULL DEFAULT 0,
      ADD COLUMN returned_tx_hash text,
      ADD COLUMN return_failure text;
    CREATE INDEX collector_inflows_returning ON collector_inflows (id) WHERE return_status = 'pending';
    ALTER TABLE solana_transactions DROP CONSTRAINT solana_transactions_purpose_check;
    ALTER TABLE solana_transactions ADD CONSTRAINT solana_transactions_purpose_check
      CHECK (purpose IN ('payment', 'settlement', 'refund', 'inflow_return'));
  `.execute(db);
}
