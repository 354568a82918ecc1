import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { PaymentException } from '../payments/paymentExceptions.ts';
import { MAX_LONG_POLL_MS } from '../payments/statusWaiter.ts';

/**
 * What partial transfers brought towards a payment, as one string that changes whenever the page's "send the rest"
 * panels would: each underpaid token's network, asset and total so far. Empty when nothing partial arrived.
 */
export function receivedFingerprint(exceptions: readonly PaymentException[]): string {
  return exceptions
    .filter((exception) => exception.type === 'underpaid')
    .map((exception) => `${exception.asset}=${exception.amount}`)
    .sort()
    .join(',');
}

const ReceivedQuery = Type.Object(
  {
    known: Type.Optional(Type.String({ maxLength: 4096 })),
    maxPollMs: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/**
 * `{checkout_url}/<paymentId>/received`: for the checkout page's script, what partial transfers brought so far
 * (`receivedFingerprint`), held up to `maxPollMs` (at most 30 s) while it equals `known` and the payment is unpaid.
 * The page reloads when it changes, so the buyer who sent part is asked for the rest without doing anything. Public,
 * as the page is: it tells nothing the page does not show.
 */
export function registerFollowReceived(app: App, ctx: AppContext, prefix: string): void {
  app.get(
    `${prefix}/:paymentId(^pay_[A-Za-z0-9_-]{1,128}$)/received`,
    { config: { auth: false }, schema: { hide: true, querystring: ReceivedQuery } },
    async (request, reply) => {
      const { paymentId } = request.params as { paymentId: string };
      const { known, maxPollMs } = request.query as { known?: string; maxPollMs?: number };
      const wakeAt = Date.now() + Math.min(maxPollMs ?? 0, MAX_LONG_POLL_MS);
      reply.header('cache-control', 'no-store');
      for (;;) {
        const remaining = wakeAt - Date.now();
        // Registered before the read, so a change committed in between still wakes this request.
        const wait = ctx.statusWaiter.waitForChange(paymentId, Math.max(remaining, 0));
        const payment = await ctx.db
          .selectFrom('payments')
          .select(['status', 'exceptions'])
          .where('id', '=', paymentId)
          .executeTakeFirst();
        if (!payment) {
          wait.cancel();
          throw ApiError.notFound(`Payment ${paymentId} not found.`, 'payment_not_found');
        }
        const received = receivedFingerprint(payment.exceptions);
        if (received !== known || payment.status !== 'requires_action' || remaining <= 0 || !wait.held) {
          wait.cancel();
          return { received };
        }
        await wait.changed;
      }
    },
  );
}
