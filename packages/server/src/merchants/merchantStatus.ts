import type { Db } from '../db/database.ts';
import type { MERCHANT_STATUSES } from './merchantResource.ts';

/**
 * Sets a merchant's status (the operator's decision: a suspended merchant takes no new payments); every process
 * drops its cached copy through the row's change notification. False when there is no such merchant.
 */
export async function setMerchantStatus(
  db: Db,
  merchantId: string,
  status: (typeof MERCHANT_STATUSES)[number],
): Promise<boolean> {
  const changed = await db
    .updateTable('merchants')
    .set({ status, updated_at: new Date() })
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return changed.numUpdatedRows > 0n;
}
