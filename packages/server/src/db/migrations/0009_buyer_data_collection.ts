import { type Kysely, sql } from 'kysely';

/**
 * Buyer data collection (D14): the partner's threshold and a merchant's override, whether an offered option needed
 * data, and the submitted data itself, encrypted (AES-256-GCM) so the database never holds it in clear.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE partners
      ADD COLUMN data_threshold_currency text CHECK (data_threshold_currency ~ '^[A-Z]{3}$'),
      ADD COLUMN data_threshold_amount numeric(38, 0) CHECK (data_threshold_amount >= 0),
      ADD CONSTRAINT partners_data_threshold_currency_needs_amount
        CHECK (data_threshold_currency IS NULL OR data_threshold_amount IS NOT NULL);
    ALTER TABLE merchants
      ADD COLUMN data_threshold_override text NOT NULL DEFAULT 'inherit'
        CHECK (data_threshold_override IN ('inherit', 'never', 'threshold')),
      ADD COLUMN data_threshold_currency text CHECK (data_threshold_currency ~ '^[A-Z]{3}$'),
      ADD COLUMN data_threshold_amount numeric(38, 0) CHECK (data_threshold_amount >= 0),
      ADD CONSTRAINT merchants_data_threshold_amount_with_override
        CHECK ((data_threshold_override = 'threshold') = (data_threshold_amount IS NOT NULL)
          AND (data_threshold_currency IS NULL OR data_threshold_amount IS NOT NULL));
    ALTER TABLE payment_options ADD COLUMN requires_buyer_data boolean NOT NULL DEFAULT false;
    CREATE TABLE buyer_data (
      payment_id text NOT NULL REFERENCES payments(id) ON DELETE CASCADE,
      -- The CAIP-10 account the data was given for, or '*' for every account paying this payment.
      scope text NOT NULL,
      source text NOT NULL CHECK (source IN ('form', 'confirm')),
      key_id text NOT NULL,
      nonce bytea NOT NULL,
      ciphertext bytea NOT NULL,
      auth_tag bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (payment_id, scope)
    );
  `.execute(db);
}
