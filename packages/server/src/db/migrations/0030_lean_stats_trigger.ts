import { type Kysely, sql } from 'kysely';

/**
 * The statistics trigger of a payment update writes only what changed: both deltas in one insert, and a buyer count
 * only where its key changed. A payment going from processing to succeeded used to take its buyer out of
 * `merchant_buyers` (deleting the row) and put it back, and write each of the other rows in two statements; every
 * paid payment makes two such updates. Counts stay exact: a count taken down to zero is deleted, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION merchant_buyers_add(merchant text, buyer text, sign int) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF sign < 0 THEN
        DELETE FROM merchant_buyers WHERE merchant_id = merchant AND buyer_account = buyer AND payments = -sign;
        IF FOUND THEN RETURN; END IF;
      END IF;
      INSERT INTO merchant_buyers AS b (merchant_id, buyer_account, payments) VALUES (merchant, buyer, sign)
      ON CONFLICT (merchant_id, buyer_account) DO UPDATE SET payments = b.payments + EXCLUDED.payments;
      IF sign < 0 THEN
        DELETE FROM merchant_buyers WHERE merchant_id = merchant AND buyer_account = buyer AND payments = 0;
      END IF;
    END $$;

    CREATE FUNCTION payment_buyers_add(merchant text, token text, chain text, stored_status text, buyer text, sign int)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF sign < 0 THEN
        DELETE FROM payment_buyers
        WHERE merchant_id = merchant AND token_symbol = token AND network = chain AND status = stored_status
          AND buyer_account = buyer AND payments = -sign;
        IF FOUND THEN RETURN; END IF;
      END IF;
      INSERT INTO payment_buyers AS b (merchant_id, token_symbol, network, status, buyer_account, payments)
      VALUES (merchant, token, chain, stored_status, buyer, sign)
      ON CONFLICT (merchant_id, token_symbol, network, status, buyer_account) DO UPDATE SET payments = b.payments + EXCLUDED.payments;
      IF sign < 0 THEN
        DELETE FROM payment_buyers
        WHERE merchant_id = merchant AND token_symbol = token AND network = chain AND status = stored_status
          AND buyer_account = buyer AND payments = 0;
      END IF;
    END $$;

    CREATE OR REPLACE FUNCTION payments_keep_stats() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      old_token text;
      old_chain text;
      new_token text;
      new_chain text;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM payment_stats_add(NEW, 1);
        RETURN NULL;
      END IF;
      IF TG_OP = 'DELETE' THEN
        PERFORM payment_stats_add(OLD, -1);
        RETURN NULL;
      END IF;
      old_token := coalesce(upper(OLD.token_symbol), '');
      old_chain := coalesce(OLD.network, '');
      new_token := coalesce(upper(NEW.token_symbol), '');
      new_chain := coalesce(NEW.network, '');
      INSERT INTO payment_stats_deltas (merchant_id, day, status, fiat_currency, token_symbol, network, payments, fiat_total)
      VALUES
        (OLD.merchant_id, (OLD.created_at AT TIME ZONE 'UTC')::date, OLD.status, OLD.fiat_currency, old_token, old_chain, -1, -OLD.fiat_value),
        (NEW.merchant_id, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.status, NEW.fiat_currency, new_token, new_chain, 1, NEW.fiat_value);
      IF (OLD.merchant_id, OLD.buyer_account) IS DISTINCT FROM (NEW.merchant_id, NEW.buyer_account) THEN
        IF OLD.buyer_account IS NOT NULL THEN PERFORM merchant_buyers_add(OLD.merchant_id, OLD.buyer_account, -1); END IF;
        IF NEW.buyer_account IS NOT NULL THEN PERFORM merchant_buyers_add(NEW.merchant_id, NEW.buyer_account, 1); END IF;
      END IF;
      IF (OLD.merchant_id, old_token, old_chain, OLD.status, OLD.buyer_account)
        IS DISTINCT FROM (NEW.merchant_id, new_token, new_chain, NEW.status, NEW.buyer_account) THEN
        IF OLD.buyer_account IS NOT NULL THEN
          PERFORM payment_buyers_add(OLD.merchant_id, old_token, old_chain, OLD.status, OLD.buyer_account, -1);
        END IF;
        IF NEW.buyer_account IS NOT NULL THEN
          PERFORM payment_buyers_add(NEW.merchant_id, new_token, new_chain, NEW.status, NEW.buyer_account, 1);
        END IF;
      END IF;
      RETURN NULL;
    END $$;
  `.execute(db);
}
