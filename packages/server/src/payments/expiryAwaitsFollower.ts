import type { Db } from '../db/database.ts';

/**
 * Marks an unpaid payment whose buyer may pay it by a transfer a follower reads later (to its deposit address, or
 * by a Solana Pay request): its expiry waits for that follower, and the merchant's reads keep it unpaid meanwhile.
 * Called before the address or request exists, so such a payment is never read as expired while it waits; once
 * marked, nothing more is written.
 */
export async function markExpiryAwaitsFollower(
  db: Db,
  payment: { id: string; expiry_awaits_follower: boolean },
): Promise<void> {
  if (payment.expiry_awaits_follower) return;
  await db
    .updateTable('payments')
    .set({ expiry_awaits_follower: true })
    .where('id', '=', payment.id)
    .where('expiry_awaits_follower', '=', false)
    .execute();
}
