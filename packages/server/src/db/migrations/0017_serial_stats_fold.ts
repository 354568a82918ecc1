import { type Kysely, sql } from 'kysely';

/**
 * Statistics folds run one at a time across processes: two folds deleting the same deltas in different orders
 * deadlock each other (seen with a million pending deltas). A fold waits for the one running, then folds what is
 * left; its delete takes a fresh snapshot after the lock, so nothing is folded twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION fold_payment_stats();
    CREATE FUNCTION fold_payment_stats() RETURNS bigint LANGUAGE plpgsql AS $$
    DECLARE
      folded bigint;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtext('paygate:fold_payment_stats'));
      WITH moved AS (DELETE FROM payment_stats_deltas RETURNING *),
      totals AS (
        INSERT INTO payment_daily_stats AS s (merchant_id, day, status, fiat_currency, token_symbol, network, payments, fiat_total)
        SELECT merchant_id, day, status, fiat_currency, token_symbol, network, sum(payments), sum(fiat_total)
        FROM moved GROUP BY merchant_id, day, status, fiat_currency, token_symbol, network
        ON CONFLICT (merchant_id, day, status, fiat_currency, token_symbol, network) DO UPDATE
          SET payments = s.payments + EXCLUDED.payments, fiat_total = s.fiat_total + EXCLUDED.fiat_total
      )
      SELECT count(*) INTO folded FROM moved;
      RETURN folded;
    END $$;
  `.execute(db);
}
