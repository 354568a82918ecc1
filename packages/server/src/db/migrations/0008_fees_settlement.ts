import { type Kysely, sql } from 'kysely';

/**
 * Partner fee schedules (D15), the settlement batches that pay merchants (D16), and the collector shortfalls that
 * hold batches back. The fee and settlement columns of `payments` exist since 0002.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE partner_fee_schedules (
      partner_id text PRIMARY KEY REFERENCES partners(id),
      percentage text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE partner_fixed_fees (
      partner_id text NOT NULL REFERENCES partner_fee_schedules(partner_id) ON DELETE CASCADE,
      currency text NOT NULL,
      amount bigint NOT NULL CHECK (amount >= 0),
      PRIMARY KEY (partner_id, currency)
    );

    -- One transfer from the collector to one merchant destination for one asset. Written, with its payments, in the
    -- transaction that claims them; the destination is copied so a later change of it applies to later batches only.
    CREATE TABLE settlement_batches (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants(id),
      asset text NOT NULL,
      network text NOT NULL,
      destination text NOT NULL,
      amount numeric(78, 0) NOT NULL CHECK (amount > 0),
      status text NOT NULL DEFAULT 'claimed' CHECK (status IN ('claimed', 'sent', 'confirmed', 'failed')),
      tx_hash text,
      failure_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    );
    CREATE INDEX settlement_batches_open_idx ON settlement_batches (asset, created_at) WHERE status IN ('claimed', 'sent');
    CREATE TABLE settlement_batch_payments (
      batch_id text NOT NULL REFERENCES settlement_batches(id),
      payment_id text NOT NULL REFERENCES payments(id),
      amount numeric(78, 0) NOT NULL,
      PRIMARY KEY (batch_id, payment_id)
    );
    CREATE INDEX settlement_batch_payments_payment_idx ON settlement_batch_payments (payment_id);

    ALTER TABLE payments ADD COLUMN settlement_batch_id text REFERENCES settlement_batches(id);
    CREATE INDEX payments_unsettled_idx ON payments (merchant_id, token_asset)
      WHERE status = 'succeeded' AND settlement_batch_id IS NULL AND settled_at IS NULL;

    -- The relayer's journal names a settlement transfer's batch in payment_id: while one may still land, no second.
    CREATE UNIQUE INDEX evm_transactions_live_settlement_idx ON evm_transactions (payment_id)
      WHERE purpose = 'settlement' AND status <> 'failed';

    -- What the collector lacked, per asset, when a batch was held back; cleared once a batch of the asset goes out.
    CREATE TABLE settlement_shortfalls (
      asset text PRIMARY KEY,
      needed numeric(78, 0) NOT NULL,
      held numeric(78, 0) NOT NULL,
      observed_at timestamptz NOT NULL DEFAULT now()
    );

    -- Payments that succeeded before fees existed were under the default schedule: no fees, all of it settled.
    UPDATE payments SET fee_total = 0, fee_fixed = 0, fee_percentage = '0', settlement_amount = token_value
      WHERE status = 'succeeded' AND fee_total IS NULL AND token_value IS NOT NULL;
  `.execute(db);
}
