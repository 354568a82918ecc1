import { type Kysely, sql } from 'kysely';

/**
 * Buyer accounts per (merchant, token, network, stored status), kept by the statistics trigger, so the list's
 * distinct-customer count under token, network and status filters reads a few thousand index entries instead of
 * every matching payment. A row goes when no payment of its group names the account any more.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payment_buyers (
      merchant_id text NOT NULL,
      token_symbol text NOT NULL,
      network text NOT NULL,
      status text NOT NULL,
      buyer_account text NOT NULL,
      payments bigint NOT NULL,
      PRIMARY KEY (merchant_id, token_symbol, network, status, buyer_account)
    );
    CREATE INDEX payment_buyers_network_idx ON payment_buyers (merchant_id, network, status, buyer_account);
    CREATE INDEX payment_buyers_status_idx ON payment_buyers (merchant_id, status, buyer_account);

    CREATE OR REPLACE FUNCTION payment_stats_add(p payments, sign int) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      token text := coalesce(upper(p.token_symbol), '');
      chain text := coalesce(p.network, '');
    BEGIN
      INSERT INTO payment_stats_deltas (merchant_id, day, status, fiat_currency, token_symbol, network, payments, fiat_total)
      VALUES (p.merchant_id, (p.created_at AT TIME ZONE 'UTC')::date, p.status, p.fiat_currency, token, chain, sign, sign * p.fiat_value);
      IF p.buyer_account IS NOT NULL THEN
        INSERT INTO merchant_buyers AS b (merchant_id, buyer_account, payments) VALUES (p.merchant_id, p.buyer_account, sign)
        ON CONFLICT (merchant_id, buyer_account) DO UPDATE SET payments = b.payments + EXCLUDED.payments;
        DELETE FROM merchant_buyers WHERE merchant_id = p.merchant_id AND buyer_account = p.buyer_account AND payments = 0;

        INSERT INTO payment_buyers AS b (merchant_id, token_symbol, network, status, buyer_account, payments)
        VALUES (p.merchant_id, token, chain, p.status, p.buyer_account, sign)
        ON CONFLICT (merchant_id, token_symbol, network, status, buyer_account) DO UPDATE SET payments = b.payments + EXCLUDED.payments;
        DELETE FROM payment_buyers
        WHERE merchant_id = p.merchant_id AND token_symbol = token AND network = chain AND status = p.status
          AND buyer_account = p.buyer_account AND payments = 0;
      END IF;
    END $$;

    INSERT INTO payment_buyers (merchant_id, token_symbol, network, status, buyer_account, payments)
      SELECT merchant_id, coalesce(upper(token_symbol), ''), coalesce(network, ''), status, buyer_account, count(*)
      FROM payments WHERE buyer_account IS NOT NULL GROUP BY 1, 2, 3, 4, 5;
  `.execute(db);
}
