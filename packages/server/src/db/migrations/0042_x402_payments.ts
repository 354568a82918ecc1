import { type Kysely, sql } from 'kysely';

/**
 * Payments made by the x402 facilitator: every payment names where it came from (`source`: `api` for a payment a
 * partner created, `x402` for one the facilitator made when it settled an agent's authorisation), and each x402
 * payment has the authorisation it was paid with. An EIP-3009 authorisation pays once on chain (its token refuses a
 * used nonce), so (asset, payer, nonce) is unique here too: of two settles of one payload exactly one makes a payment,
 * whichever merchant and process they come through. One settle at a time waits for the payment's end
 * (`waiting_until`, its lease), and `answered_at` is set when a settle answered that the payment succeeded, so that
 * only one of the settles of one payload is told so.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE payments ADD COLUMN source text NOT NULL DEFAULT 'api';
    -- Checked for the rows written from now on; the rows there are all have the default, so no scan of them.
    ALTER TABLE payments ADD CONSTRAINT payments_source_check CHECK (source IN ('api', 'x402')) NOT VALID;
    CREATE TABLE x402_payments (
      payment_id text PRIMARY KEY REFERENCES payments (id),
      asset text NOT NULL,
      payer text NOT NULL,
      nonce text NOT NULL,
      signature text NOT NULL,
      resource_url text,
      waiting_until timestamptz,
      answered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (asset, payer, nonce)
    );
  `.execute(db);
}
