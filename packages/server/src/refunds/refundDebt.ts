import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/**
 * What the merchant still owes back of its on-chain refunds in `asset`, in the token's minor units: the refunds made
 * (all but failed ones: each was taken from the merchant's balance as it was made) less what settlement batches
 * (all but failed ones) deducted from its payments.
 */
export async function refundDebt(db: Db, merchantId: string, asset: string): Promise<bigint> {
  const { refunded, deducted } = await db
    .selectNoFrom([
      sql<string>`(SELECT coalesce(sum(token_value), 0) FROM refunds
        WHERE merchant_id = ${merchantId} AND token_asset = ${asset} AND method = 'onchain' AND status <> 'failed'
          AND exception_id IS NULL)::text`.as('refunded'),
      sql<string>`(SELECT coalesce(sum(refunds_deducted), 0) FROM settlement_batches
        WHERE merchant_id = ${merchantId} AND asset = ${asset} AND refunds_deducted > 0 AND status <> 'failed')::text`.as(
        'deducted',
      ),
    ])
    .executeTakeFirstOrThrow();
  return BigInt(refunded) - BigInt(deducted);
}

/**
 * What pending on-chain refunds in `asset` (those made before refund `before`, when given) will take from the
 * collector: kept back from settlement batches and from later refunds.
 */
export async function pendingRefundsOf(db: Db, asset: string, before?: string): Promise<bigint> {
  let query = db
    .selectFrom('refunds')
    .select(sql<string>`coalesce(sum(token_value), 0)::text`.as('amount'))
    .where('token_asset', '=', asset)
    .where('method', '=', 'onchain')
    .where('status', '=', 'pending');
  if (before !== undefined) query = query.where('id', '<', before);
  const { amount } = await query.executeTakeFirstOrThrow();
  return BigInt(amount);
}
