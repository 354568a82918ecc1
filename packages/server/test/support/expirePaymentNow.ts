import { expect } from 'vitest';
import { expireDuePayments } from '../../src/payments/expiry.ts';

/**
 * Makes an unpaid payment's expiry pass now and runs the expiry sweep until it took the payment: at once without a
 * deposit address, else once its network's deposit follower read the blocks up to the expiry (a block or two here).
 */
export async function expirePaymentNow(ctx: Parameters<typeof expireDuePayments>[0], paymentId: string) {
  await ctx.db
    .updateTable('payments')
    .set({ expires_at: new Date(ctx.clock.now().getTime() - 1_000) })
    .where('id', '=', paymentId)
    .execute();
  const statusOf = async () =>
    (await ctx.db.selectFrom('payments').select('status').where('id', '=', paymentId).executeTakeFirstOrThrow()).status;
  await expect
    .poll(
      async () => {
        await expireDuePayments(ctx);
        return statusOf();
      },
      { timeout: 30_000 },
    )
    .not.toBe('requires_action');
}
