import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { PaymentStatusView, toStatusView } from '../payments/paymentResource.ts';
import { changePaymentStatus, InvalidTransitionError } from '../payments/transitions.ts';
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
        description: 'An unpaid payment becomes cancelled; cancelling it again returns it unchanged.',
        params: GatewayPaymentParams,
        response: { 200: PaymentStatusView, ...errorResponses(404, 410) },
      },
    },
    async (request) => {
      const payment = await gatewayPaymentOf(ctx, request.params.id);
      const now = ctx.clock.now();
      if (payment.status === 'cancelled') return toStatusView(payment, ctx.chains, now);
      requirePayable(payment, now);
      try {
        const cancelled = await ctx.db.transaction().execute(async (trx) => {
          // The payment's row lock, which recording a confirm takes too: of a cancel and a confirm, exactly one wins.
          await trx.selectFrom('payments').select('id').where('id', '=', payment.id).forUpdate().execute();
          // A confirmation already accepted is being submitted: the buyer can no longer decline.
          const confirmed = await trx
            .selectFrom('payment_confirmations')
            .select('payment_id')
            .where('payment_id', '=', payment.id)
            .executeTakeFirst();
          if (confirmed)
            throw new ApiError('invalid_state', 'The payment is being paid and can no longer be declined.');
          const changed = await changePaymentStatus(
            { db: trx, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now },
            payment.id,
            'cancelled',
            {
              failure_code: 'declined_user',
            },
          );
          return changed.payment;
        });
        return toStatusView(cancelled, ctx.chains, now);
      } catch (error) {
        if (error instanceof InvalidTransitionError) {
          throw new ApiError('invalid_state', `A ${error.from} payment cannot be declined.`, {
            status: error.from,
          });
        }
        throw error;
      }
    },
  );
}
