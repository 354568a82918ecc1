import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from './merchantHeader.ts';
import { PaymentIdParams, paymentOfRequest } from './paymentLookup.ts';
import { PaymentStatusView, toStatusView } from './paymentResource.ts';
import { effectiveStatus, isTerminal } from './stateMachine.ts';
import { MAX_LONG_POLL_MS } from './statusWaiter.ts';

export const LongPollQuery = Type.Object(
  {
    maxPollMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: `Hold the request until the status changes, at most this long (capped at ${MAX_LONG_POLL_MS} ms)`,
      }),
    ),
  },
  { additionalProperties: false },
);

export function registerGetPaymentStatus(app: App, ctx: AppContext): void {
  const waiter = ctx.statusWaiter;
  app.get(
    '/v1/payments/:id/status',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payments'],
        summary: 'Payment status, with long-poll',
        description:
          'With maxPollMs the response waits until the status changes (in any service process), at most 30 s.',
        headers: MerchantIdHeader,
        params: PaymentIdParams,
        querystring: LongPollQuery,
        response: { 200: PaymentStatusView, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { payment: first } = await paymentOfRequest(ctx, request, request.params.id);
      const initial = effectiveStatus(first, ctx.clock.now());
      const maxPollMs = Math.min(request.query.maxPollMs ?? 0, MAX_LONG_POLL_MS);
      if (maxPollMs === 0 || isTerminal(initial)) return toStatusView(first, ctx.chains, ctx.clock.now());

      // Wake at the deadline, or, for an unpaid payment, just after the expiry, which changes its status without any write.
      const untilExpiryMs = first.expires_at.getTime() - ctx.clock.now().getTime() + 50;
      const wakeAt = Date.now() + (initial === 'requires_action' ? Math.min(maxPollMs, untilExpiryMs) : maxPollMs);
      for (;;) {
        const remaining = wakeAt - Date.now();
        // Registered before the re-read, so a change committed in between still wakes this request.
        const wait = waiter.waitForChange(first.id, Math.max(remaining, 0));
        const { payment } = await paymentOfRequest(ctx, request, request.params.id);
        const now = ctx.clock.now();
        if (effectiveStatus(payment, now) !== initial || remaining <= 0 || !wait.held) {
          wait.cancel();
          return toStatusView(payment, ctx.chains, now);
        }
        await wait.changed;
      }
    },
  );
}
