import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from './merchantHeader.ts';
import { PaymentIdParams, paymentOfRequest } from './paymentLookup.ts';
import { PaymentStatusView, toStatusView } from './paymentResource.ts';
import { effectiveStatus } from './stateMachine.ts';
import { changePaymentStatus, InvalidTransitionError } from './transitions.ts';

export function registerCancelPayment(app: App, ctx: AppContext): void {
  app.post(
    '/v1/payments/:id/cancel',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payments'],
        summary: 'Cancel an unpaid payment',
        description:
          'Only a payment still waiting for the buyer can be cancelled; cancelling a cancelled payment returns it unchanged.',
        headers: MerchantIdHeader,
        params: PaymentIdParams,
        response: { 200: PaymentStatusView, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { payment } = await paymentOfRequest(ctx, request, request.params.id);
      const now = ctx.clock.now();
      const status = effectiveStatus(payment.status, payment.expires_at, now);
      if (status !== 'requires_action' && status !== 'cancelled') {
        throw new ApiError('invalid_state', `A ${status} payment cannot be cancelled.`, { status });
      }
      try {
        const { payment: cancelled } = await changePaymentStatus(
          { db: ctx.db, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now },
          payment.id,
          'cancelled',
        );
        return toStatusView(cancelled, ctx.chains, now);
      } catch (error) {
        if (error instanceof InvalidTransitionError) {
          throw new ApiError('invalid_state', `A ${error.from} payment cannot be cancelled.`, {
            status: error.from,
          });
        }
        throw error;
      }
    },
  );
}
