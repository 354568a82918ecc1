import { type Kysely, sql } from 'kysely';

/**
 * The journal of Solana transactions the service co-signs: each is written here, with its complete signed bytes,
 * before it is first sent, so a restart can re-send exactly those bytes and never a different transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE solana_transactions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      network text NOT NULL,
      purpose text NOT NULL CHECK (purpose IN ('payment', 'settlement')),
      reference text NOT NULL,
      signature text NOT NULL UNIQUE,
      wire_transaction bytea NOT NULL,
      blockhash text NOT NULL,
      last_valid_block_height bigint NOT NULL,
      status text NOT NULL DEFAULT 'recorded'
        CHECK (status IN ('recorded', 'sent', 'confirmed', 'failed', 'expired')),
      send_attempts integer NOT NULL DEFAULT 0,
      slot bigint,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      first_sent_at timestamptz,
      completed_at timestamptz
    );
    -- While one transaction for a payment (or settlement) may still land or has landed, no other may be journaled.
    CREATE UNIQUE INDEX solana_transactions_live_reference_idx ON solana_transactions (purpose, reference)
      WHERE status IN ('recorded', 'sent', 'confirmed');
    CREATE INDEX solana_transactions_open_idx ON solana_transactions (network, id)
      WHERE status IN ('recorded', 'sent');
  `.execute(db);
}
