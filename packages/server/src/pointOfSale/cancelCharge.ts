import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { cancelUnpaidPayment } from '../payments/cancelPayment.ts';
import { ChargeView, chargeOfDevice, PaymentIdParams, toChargeView } from './charges.ts';
import { deviceOf } from './devices.ts';

/**
 * Cancels one of the device's charges still waiting for the buyer, as the merchant's cancel does; cancelling it again
 * answers it unchanged. Once the buyer's payment is on its way it can no longer be (400 invalid_state).
 */
export function registerCancelCharge(app: App, ctx: AppContext): void {
  app.post(
    '/v1/point-of-sale/charges/:paymentId/cancel',
    {
      config: { auth: { device: true } },
      schema: {
        tags: ['point of sale'],
        summary: "Cancel one of the device's unpaid charges",
        params: PaymentIdParams,
        response: { 200: ChargeView, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { deviceId } = deviceOf(request);
      const charge = await chargeOfDevice(ctx, deviceId, request.params.paymentId);
      const now = ctx.clock.now();
      const view = toChargeView(ctx, charge, now);
      if (view.status === 'cancelled') return view;
      if (view.status !== 'requires_action') {
        throw new ApiError('invalid_state', `A ${view.status} payment cannot be cancelled.`, { status: view.status });
      }
      await cancelUnpaidPayment(ctx, charge.id, 'merchant', now);
      return toChargeView(ctx, await chargeOfDevice(ctx, deviceId, charge.id), ctx.clock.now());
    },
  );
}
