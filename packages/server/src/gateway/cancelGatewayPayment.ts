import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { CancelledPaymentView, cancelUnpaidPayment, toCancelledView } from '../payments/cancelPayment.ts';
import { gatewayPaymentOf, requirePayable } from './gatewayPayment.ts';
import { GatewayPaymentParams } from './gatewaySchemas.ts';

export function registerCancelGatewayPayment(app: App, ctx: AppContext): void {
  app.post(
    '/v1/gateway/payment/:id/cancel',
    {
      config: { auth: { scope: 'gateway', allowApp: true } },
      schema: {
        tags: ['gateway'],
        summary: 'The buyer declines the payment',
        description:
          'An unpaid payment becomes cancelled; cancelling it again returns it unchanged. Once a confirmation was accepted the payment is being paid, and the cancel answers 400 invalid_state.',
        params: GatewayPaymentParams,
        response: { 200: CancelledPaymentView, ...errorResponses(404, 410) },
      },
    },
    async (request) => {
      const payment = await gatewayPaymentOf(ctx, request.params.id);
      const now = ctx.clock.now();
      if (payment.status === 'cancelled') return toCancelledView(payment, ctx.chains, now);
      requirePayable(payment, now);
      return toCancelledView(await cancelUnpaidPayment(ctx, payment.id, 'buyer', now), ctx.chains, now);
    },
  );
}
