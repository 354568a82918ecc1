import { type Kysely, sql } from 'kysely';

/**
 * Payment statistics written as appended deltas instead of updates of one running-total row: every payment a busy
 * merchant creates on one day would otherwise wait on the same row's lock until the previous creation commits.
 * Deltas are folded into `payment_daily_stats` in the background (`fold_payment_stats`); readers sum both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payment_stats_deltas (
      merchant_id text NOT NULL,
      day date NOT NULL,
      status text NOT NULL,
      fiat_currency text NOT NULL,
      token_symbol text NOT NULL,
      network text NOT NULL,
      payments bigint NOT NULL,
      fiat_total numeric NOT NULL
    );
    CREATE INDEX payment_stats_deltas_merchant_day_idx ON payment_stats_deltas (merchant_id, day);

    CREATE OR REPLACE FUNCTION payment_stats_add(p payments, sign int) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO payment_stats_deltas (merchant_id, day, status, fiat_currency, token_symbol, network, payments, fiat_total)
      VALUES (p.merchant_id, (p.created_at AT TIME ZONE 'UTC')::date, p.status, p.fiat_currency,
              coalesce(upper(p.token_symbol), ''), coalesce(p.network, ''), sign, sign * p.fiat_value);
      IF p.buyer_account IS NOT NULL THEN
        INSERT INTO merchant_buyers AS b (merchant_id, buyer_account, payments) VALUES (p.merchant_id, p.buyer_account, sign)
        ON CONFLICT (merchant_id, buyer_account) DO UPDATE SET payments = b.payments + EXCLUDED.payments;
        DELETE FROM merchant_buyers WHERE merchant_id = p.merchant_id AND buyer_account = p.buyer_account AND payments = 0;
      END IF;
    END $$;

    CREATE FUNCTION fold_payment_stats() RETURNS bigint LANGUAGE sql AS $$
      WITH moved AS (DELETE FROM payment_stats_deltas RETURNING *),
      folded AS (
        INSERT INTO payment_daily_stats AS s (merchant_id, day, status, fiat_currency, token_symbol, network, payments, fiat_total)
        SELECT merchant_id, day, status, fiat_currency, token_symbol, network, sum(payments), sum(fiat_total)
        FROM moved GROUP BY merchant_id, day, status, fiat_currency, token_symbol, network
        ON CONFLICT (merchant_id, day, status, fiat_currency, token_symbol, network) DO UPDATE
          SET payments = s.payments + EXCLUDED.payments, fiat_total = s.fiat_total + EXCLUDED.fiat_total
      )
      SELECT count(*) FROM moved;
    $$;
  `.execute(db);
}
