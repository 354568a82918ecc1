import { type Kysely, sql } from 'kysely';

/**
 * A transfer of value to the collector that a confirm refused (another sender than the option's, another amount, no
 * reference, or a payment that could no longer take it) is still the sender's money in the collector: it is noted
 * here when refused, its transaction followed (`chain_watches` kind `refused_transfer`), and once final recorded as a
 * payment exception the merchant can send back.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE refused_transfers (
      chain text NOT NULL,
      tx_hash text NOT NULL,
      payment_id text NOT NULL REFERENCES payments (id),
      -- CAIP-10 account that sent it, and the CAIP-19 asset with its amount in minor units.
      sender text NOT NULL,
      asset text NOT NULL,
      amount numeric(78, 0) NOT NULL CHECK (amount > 0),
      -- Why the confirm refused it (a refusal code).
      reason text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (chain, tx_hash)
    );
    ALTER TABLE chain_watches DROP CONSTRAINT chain_watches_kind_check;
    ALTER TABLE chain_watches ADD CONSTRAINT chain_watches_kind_check
      CHECK (kind IN ('native_payment', 'permit2_approval', 'refused_transfer'));
  `.execute(db);
}
