import { type Kysely, sql } from 'kysely';

/**
 * Transfers out of the collector are now taken from their owner's ledger account when they are decided, into
 * `payouts_in_flight` until they are final, instead of when they are final. The settlement batches and on-chain
 * refunds still open when this runs are entered so, so an upgraded database audits clean and each finishes as a new
 * one would; a merchant an earlier refund took below zero shows as a negative balance in `paygate audit`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    INSERT INTO ledger_entries (entry, account, asset, amount)
    SELECT 'settlement:' || batch.id, line.account, batch.asset, line.amount
    FROM settlement_batches batch
    CROSS JOIN LATERAL (VALUES ('merchant:' || batch.merchant_id, batch.amount), ('payouts_in_flight', -batch.amount))
      AS line (account, amount)
    WHERE batch.status IN ('claimed', 'sent') AND batch.amount > 0
    ON CONFLICT (entry, account, asset) DO NOTHING
  `.execute(db);
  await sql`
    INSERT INTO ledger_entries (entry, account, asset, amount)
    SELECT 'refund:' || refund.id, line.account, refund.token_asset, line.amount
    FROM refunds refund
    CROSS JOIN LATERAL (
      VALUES
        (CASE WHEN refund.exception_id IS NULL THEN 'merchant:' ELSE 'buyers:' END || refund.merchant_id,
         refund.token_value),
        ('payouts_in_flight', -refund.token_value)
    ) AS line (account, amount)
    WHERE refund.method = 'onchain' AND refund.status = 'pending' AND refund.token_asset IS NOT NULL
      AND refund.token_value > 0
    ON CONFLICT (entry, account, asset) DO NOTHING
  `.execute(db);
}
