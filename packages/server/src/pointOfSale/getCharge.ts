import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { MAX_LONG_POLL_MS } from '../payments/statusWaiter.ts';
import { ChargeView, chargeOfDevice, PaymentIdParams, toChargeView } from './charges.ts';
import { deviceOf } from './devices.ts';

const ChargeQuery = Type.Object(
  {
    maxPollMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: `Hold the request until the status differs from \`since\`, at most this long (capped at ${MAX_LONG_POLL_MS} ms)`,
      }),
    ),
    since: Type.Optional(
      Type.String({
        maxLength: 32,
        description: 'The status the device last showed: a payment already in another answers at once',
      }),
    ),
  },
  { additionalProperties: false },
);

/** One of the device's charges, with long-poll: the screen that shows the QR code follows the payment with it. */
export function registerGetCharge(app: App, ctx: AppContext): void {
  const waiter = ctx.statusWaiter;
  app.get(
    '/v1/point-of-sale/charges/:paymentId',
    {
      config: { auth: { device: true } },
      schema: {
        tags: ['point of sale'],
        summary: "One of the device's charges, with long-poll",
        params: PaymentIdParams,
        querystring: ChargeQuery,
        response: { 200: ChargeView, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { deviceId } = deviceOf(request);
      const { paymentId } = request.params;
      const first = await chargeOfDevice(ctx, deviceId, paymentId);
      const firstView = toChargeView(ctx, first, ctx.clock.now());
      const seen = request.query.since ?? firstView.status;
      const maxPollMs = Math.min(request.query.maxPollMs ?? 0, MAX_LONG_POLL_MS);
      if (maxPollMs === 0 || firstView.isFinal || firstView.status !== seen) return firstView;
      // An unpaid payment expires without a write, so nothing would wake this at its expiry: wake just after it.
      const untilExpiryMs = first.expires_at.getTime() - ctx.clock.now().getTime() + 50;
      const wakeAt = Date.now() + (seen === 'requires_action' ? Math.min(maxPollMs, untilExpiryMs) : maxPollMs);
      for (;;) {
        const remaining = wakeAt - Date.now();
        // Registered before the read, so a change committed in between still wakes this request.
        const wait = waiter.waitForChange(paymentId, Math.max(remaining, 0));
        const view = toChargeView(ctx, await chargeOfDevice(ctx, deviceId, paymentId), ctx.clock.now());
        if (view.status !== seen || remaining <= 0 || !wait.held) {
          wait.cancel();
          return view;
        }
        await wait.changed;
      }
    },
  );
}
