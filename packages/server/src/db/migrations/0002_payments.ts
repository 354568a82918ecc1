import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payments (
      id text PRIMARY KEY,
      partner_id text NOT NULL REFERENCES partners(id),
      merchant_id text NOT NULL REFERENCES merchants(id),
      reference_id text NOT NULL,
      status text NOT NULL DEFAULT 'requires_action'
        CHECK (status IN ('requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled')),
      failure_code text,
      fiat_currency text NOT NULL,
      fiat_value bigint NOT NULL CHECK (fiat_value > 0),
      success_url text,
      error_url text,
      expires_at timestamptz NOT NULL,
      token_asset text,
      token_symbol text,
      network text,
      token_value numeric(78, 0),
      buyer_account text,
      buyer_provider_name text,
      buyer_provider_icon text,
      tx_hash text,
      tx_nonce bigint,
      fee_total numeric(78, 0),
      fee_fixed numeric(78, 0),
      fee_percentage text,
      settlement_amount numeric(78, 0),
      settlement_tx_hash text,
      settled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (merchant_id, reference_id)
    );
    CREATE INDEX payments_merchant_created_idx ON payments (merchant_id, created_at DESC, id DESC);
    CREATE INDEX payments_merchant_amount_idx ON payments (merchant_id, fiat_value DESC, id DESC);
    CREATE INDEX payments_merchant_status_created_idx ON payments (merchant_id, status, created_at DESC);
  `.execute(db);
}
