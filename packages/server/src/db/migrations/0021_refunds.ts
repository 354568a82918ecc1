import { type Kysely, sql } from 'kysely';

/**
 * A refund of a succeeded payment, whole or in part. `recorded` refunds note money the merchant returned elsewhere
 * and are final at once; `onchain` refunds are sent by the service from the collector to the paying account, in the
 * paid token, through the chain layer's journals (purpose `refund`, referenced by the refund id). An on-chain
 * refund is taken from the merchant's settlements in its asset once it succeeded: a settlement batch records in
 * `refunds_deducted` how much of that debt it paid off, so what is still owed back is the succeeded on-chain refunds
 * less what batches that did not fail deducted.
 * Amounts: `fiat_value` in the payment's currency's minor units, `token_value` in the paid token's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE refunds (
      id text PRIMARY KEY,
      partner_id text NOT NULL REFERENCES partners (id),
      merchant_id text NOT NULL REFERENCES merchants (id),
      payment_id text NOT NULL REFERENCES payments (id),
      method text NOT NULL CHECK (method IN ('recorded', 'onchain')),
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      fiat_currency text NOT NULL,
      fiat_value int8 NOT NULL CHECK (fiat_value > 0),
      token_asset text,
      token_value int8 CHECK (token_value >= 0),
      destination text,
      tx_hash text,
      failure_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    );
    CREATE INDEX refunds_payment_idx ON refunds (payment_id, id);
    CREATE INDEX refunds_partner_idx ON refunds (partner_id, id);
    CREATE INDEX refunds_pending_idx ON refunds (id) WHERE status = 'pending';
    CREATE INDEX refunds_merchant_idx ON refunds (merchant_id, id);
    ALTER TABLE settlement_batches ADD COLUMN refunds_deducted int8 NOT NULL DEFAULT 0;
    CREATE INDEX settlement_batches_deducting_idx ON settlement_batches (merchant_id, asset) WHERE refunds_deducted > 0;

    ALTER TABLE solana_transactions DROP CONSTRAINT solana_transactions_purpose_check;
    ALTER TABLE solana_transactions ADD CONSTRAINT solana_transactions_purpose_check
      CHECK (purpose IN ('payment', 'settlement', 'refund'));
    -- The relayer's journal names a refund's transfer by the refund id in payment_id: while one may still land, no second.
    CREATE UNIQUE INDEX evm_transactions_live_refund_idx ON evm_transactions (payment_id)
      WHERE purpose = 'refund' AND status <> 'failed';
  `.execute(db);
}
