import { Type } from '@sinclair/typebox';
import type { ChainRegistry } from '../chains/registry.ts';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from './merchantHeader.ts';
import { PaymentIdParams, paymentOfRequest } from './paymentLookup.ts';
import { type PaymentRow, PaymentStatusView, toStatusView } from './paymentResource.ts';
import { effectiveStatus } from './stateMachine.ts';
import { changePaymentStatus, InvalidTransitionError } from './transitions.ts';

/** Who cancelled a payment: its merchant, or the buyer declining it through the gateway. */
export type Canceller = 'merchant' | 'buyer';

/** The failure code a payment the buyer declined records (D8); a merchant's cancel records none. */
const BUYER_DECLINED = 'declined_user';

/** What both cancel routes answer: the status, and which payment was cancelled, by whom and when. */
export const CancelledPaymentView = Type.Object({
  ...PaymentStatusView.properties,
  paymentId: Type.String(),
  cancelledReason: Type.Union([Type.Literal('cancelled_by_merchant'), Type.Literal('cancelled_by_user')], {
    description: 'cancelled_by_merchant (POST /v1/payments/{id}/cancel) or cancelled_by_user (the gateway cancel)',
  }),
  cancelledAt: Type.String({ description: 'ISO 8601 timestamp' }),
});

export function toCancelledView(payment: PaymentRow, chains: ChainRegistry, now: Date) {
  return {
    ...toStatusView(payment, chains, now),
    paymentId: payment.id,
    cancelledReason:
      payment.failure_code === BUYER_DECLINED ? ('cancelled_by_user' as const) : ('cancelled_by_merchant' as const),
    // A cancelled payment never changes again: its last change is its cancellation.
    cancelledAt: payment.updated_at.toISOString(),
  };
}

/**
 * Cancels a payment still waiting for the buyer. It runs under the payment's row lock, which recording a confirm
 * takes too, so of a cancel and a confirm exactly one wins: once a confirmation is accepted the payment is being
 * paid and is not cancelled (400 `invalid_state`), whoever asks.
 */
export async function cancelUnpaidPayment(
  ctx: AppContext,
  paymentId: string,
  by: Canceller,
  now: Date,
): Promise<PaymentRow> {
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const { status } = await trx
        .selectFrom('payments')
        .select('status')
        .where('id', '=', paymentId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const confirmed = await trx
        .selectFrom('payment_confirmations')
        .select('payment_id')
        .where('payment_id', '=', paymentId)
        .executeTakeFirst();
      if (confirmed)
        throw new ApiError('invalid_state', 'The payment is being paid and can no longer be cancelled.', { status });
      const { payment } = await changePaymentStatus(
        { db: trx, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now },
        paymentId,
        'cancelled',
        by === 'buyer' ? { failure_code: BUYER_DECLINED } : {},
      );
      return payment;
    });
  } catch (error) {
    if (error instanceof InvalidTransitionError) {
      throw new ApiError('invalid_state', `A ${error.from} payment cannot be cancelled.`, { status: error.from });
    }
    throw error;
  }
}

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
          'Only a payment still waiting for the buyer can be cancelled; cancelling a cancelled payment returns it unchanged. Once a confirmation of the buyer was accepted the payment is being paid, and the cancel answers 400 invalid_state.',
        headers: MerchantIdHeader,
        params: PaymentIdParams,
        response: { 200: CancelledPaymentView, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { payment } = await paymentOfRequest(ctx, request, request.params.id);
      const now = ctx.clock.now();
      const status = effectiveStatus(payment, now);
      if (status === 'cancelled') return toCancelledView(payment, ctx.chains, now);
      if (status !== 'requires_action') {
        throw new ApiError('invalid_state', `A ${status} payment cannot be cancelled.`, { status });
      }
      return toCancelledView(await cancelUnpaidPayment(ctx, payment.id, 'merchant', now), ctx.chains, now);
    },
  );
}
