import { type Kysely, sql } from 'kysely';

/**
 * Running totals for the payment list's statistics, so a merchant with a million payments gets them without a scan.
 * Triggers keep them in the same transaction as every insert and update of a payment, whichever code path writes it.
 *
 * - `payment_daily_stats`: payments and fiat total per (merchant, UTC day, status, currency, token, network).
 * - `merchant_buyers`: how many of a merchant's payments name each buyer account (the unfiltered distinct-customer
 *   count is its row count; a row goes when no payment names the account any more).
 * - Covering indexes let filtered distinct-buyer counts read the index alone; a partial index finds the unpaid
 *   payments not yet past expiry (the only rows whose listed status depends on the time of the request).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payment_daily_stats (
      merchant_id text NOT NULL,
      day date NOT NULL,
      status text NOT NULL,
      fiat_currency text NOT NULL,
      token_symbol text NOT NULL,
      network text NOT NULL,
      payments bigint NOT NULL,
      fiat_total numeric NOT NULL,
      PRIMARY KEY (merchant_id, day, status, fiat_currency, token_symbol, network)
    );

    CREATE TABLE merchant_buyers (
      merchant_id text NOT NULL,
      buyer_account text NOT NULL,
      payments bigint NOT NULL,
      PRIMARY KEY (merchant_id, buyer_account)
    );

    CREATE FUNCTION payment_stats_add(p payments, sign int) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO payment_daily_stats AS s
        (merchant_id, day, status, fiat_currency, token_symbol, network, payments, fiat_total)
      VALUES
        (p.merchant_id, (p.created_at AT TIME ZONE 'UTC')::date, p.status, p.fiat_currency,
         coalesce(upper(p.token_symbol), ''), coalesce(p.network, ''), sign, sign * p.fiat_value)
      ON CONFLICT (merchant_id, day, status, fiat_currency, token_symbol, network) DO UPDATE
        SET payments = s.payments + EXCLUDED.payments, fiat_total = s.fiat_total + EXCLUDED.fiat_total;
      IF p.buyer_account IS NOT NULL THEN
        INSERT INTO merchant_buyers AS b (merchant_id, buyer_account, payments) VALUES (p.merchant_id, p.buyer_account, sign)
        ON CONFLICT (merchant_id, buyer_account) DO UPDATE SET payments = b.payments + EXCLUDED.payments;
        DELETE FROM merchant_buyers WHERE merchant_id = p.merchant_id AND buyer_account = p.buyer_account AND payments = 0;
      END IF;
    END $$;

    CREATE FUNCTION payments_keep_stats() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM payment_stats_add(OLD, -1);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM payment_stats_add(NEW, 1);
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER payments_keep_stats_on_insert_or_delete AFTER INSERT OR DELETE ON payments
      FOR EACH ROW EXECUTE FUNCTION payments_keep_stats();
    CREATE TRIGGER payments_keep_stats_on_update
      AFTER UPDATE OF merchant_id, created_at, status, fiat_currency, fiat_value, token_symbol, network, buyer_account ON payments
      FOR EACH ROW
      WHEN ((OLD.merchant_id, OLD.created_at, OLD.status, OLD.fiat_currency, OLD.fiat_value, OLD.token_symbol, OLD.network, OLD.buyer_account)
        IS DISTINCT FROM (NEW.merchant_id, NEW.created_at, NEW.status, NEW.fiat_currency, NEW.fiat_value, NEW.token_symbol, NEW.network, NEW.buyer_account))
      EXECUTE FUNCTION payments_keep_stats();

    INSERT INTO payment_daily_stats (merchant_id, day, status, fiat_currency, token_symbol, network, payments, fiat_total)
      SELECT merchant_id, (created_at AT TIME ZONE 'UTC')::date, status, fiat_currency,
             coalesce(upper(token_symbol), ''), coalesce(network, ''), count(*), sum(fiat_value)
      FROM payments GROUP BY 1, 2, 3, 4, 5, 6;
    INSERT INTO merchant_buyers (merchant_id, buyer_account, payments)
      SELECT merchant_id, buyer_account, count(*) FROM payments WHERE buyer_account IS NOT NULL GROUP BY 1, 2;

    CREATE INDEX payments_merchant_status_created_buyer_idx ON payments (merchant_id, status, created_at) INCLUDE (buyer_account);
    CREATE INDEX payments_merchant_token_network_created_buyer_idx
      ON payments (merchant_id, upper(token_symbol), network, created_at) INCLUDE (buyer_account);
    CREATE INDEX payments_merchant_unpaid_expiry_idx ON payments (merchant_id, expires_at) WHERE status = 'requires_action';
    DROP INDEX payments_merchant_status_created_idx;
  `.execute(db);
}
