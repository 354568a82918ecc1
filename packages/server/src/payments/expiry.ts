import type { Task } from 'graphile-worker';
import type { AppContext } from '../context.ts';
import { InvalidTransitionError, changePaymentStatus } from './transitions.ts';

export const EXPIRE_PAYMENT_TASK = 'expire_payment';

/**
 * Scheduled at a payment's `expiresAt`: an unpaid payment becomes expired. A payment paid or cancelled in time is
 * left alone, and a job that runs early (clock skew) is rescheduled by running again later.
 */
export function expirePaymentTask(ctx: Pick<AppContext, 'db' | 'chains' | 'clock' | 'config'>): Task {
  return async (payload) => {
    const { paymentId } = payload as { paymentId: string };
    const payment = await ctx.db
      .selectFrom('payments')
      .select(['status', 'expires_at'])
      .where('id', '=', paymentId)
      .executeTakeFirst();
    if (payment?.status !== 'requires_action') return;
    const now = ctx.clock.now();
    if (now < payment.expires_at)
      throw new Error(`payment ${paymentId} expires at ${payment.expires_at.toISOString()}, not yet`);
    try {
      await changePaymentStatus(
        { db: ctx.db, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now },
        paymentId,
        'expired',
      );
    } catch (error) {
      if (!(error instanceof InvalidTransitionError)) throw error;
    }
  };
}
