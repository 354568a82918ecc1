import { type Kysely, sql } from 'kysely';

/**
 * What the gateway offered a buyer and what the buyer confirmed: a confirm is checked against exactly the option
 * that was offered, and one confirmation per payment is the claim that lets only one of racing confirms submit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payment_options (
      id text PRIMARY KEY,
      payment_id text NOT NULL REFERENCES payments(id) ON DELETE CASCADE,
      account text NOT NULL,
      asset text NOT NULL,
      network text NOT NULL,
      method text NOT NULL,
      amount numeric(78, 0) NOT NULL CHECK (amount > 0),
      quote_expires_at timestamptz,
      actions jsonb NOT NULL,
      terms jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX payment_options_payment_idx ON payment_options (payment_id);
    CREATE TABLE payment_confirmations (
      payment_id text PRIMARY KEY REFERENCES payments(id) ON DELETE CASCADE,
      option_id text NOT NULL REFERENCES payment_options(id) ON DELETE CASCADE,
      results jsonb NOT NULL,
      provider_name text,
      provider_icon text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db);
}
