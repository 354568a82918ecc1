import { type Kysely, sql } from 'kysely';

/**
 * Refunds of payment exceptions: what a buyer sent that did not pay the payment (less than asked on a failed
 * payment, the excess of an overpayment, a late or wrong-token transfer) is sent back whole to the account that sent
 * it. Such a refund names its exception, has no amount in the payment currency (it was never the merchant's money,
 * so it neither counts as refunded revenue nor is deducted from settlements), and is made once per exception.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE refunds ADD COLUMN exception_id text;
    ALTER TABLE refunds DROP CONSTRAINT refunds_fiat_value_check;
    ALTER TABLE refunds ADD CONSTRAINT refunds_fiat_value_check
      CHECK (fiat_value > 0 OR (exception_id IS NOT NULL AND fiat_value = 0));
    CREATE UNIQUE INDEX refunds_one_per_exception_idx ON refunds (exception_id)
      WHERE exception_id IS NOT NULL AND status <> 'failed';
  `.execute(db);
}
