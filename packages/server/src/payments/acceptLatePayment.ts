import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from './merchantHeader.ts';
import { paidByException } from './paymentExceptions.ts';
import { PaymentIdParams, paymentOfRequest } from './paymentLookup.ts';
import { PaymentDetail, type PaymentRow, toPaymentDetail } from './paymentResource.ts';
import { canAcceptLatePayment } from './stateMachine.ts';
import { changePaymentStatus } from './transitions.ts';

const AcceptParams = Type.Object({
  ...PaymentIdParams.properties,
  exceptionId: Type.String({ maxLength: 64, description: 'The `paid_late` exception to accept (`exceptions[].id`)' }),
});

/**
 * Makes a closed unpaid payment (expired, cancelled or failed) succeed with a transfer that arrived after it closed:
 * the buyer, token, amount and transaction are the late transfer's, fees are fixed as for any success, and the
 * exception keeps when it was accepted. Under the payment's row lock, so it races neither a refund of the same
 * exception nor a second acceptance; accepting it again answers the payment as it is.
 */
async function acceptLateTransfer(ctx: AppContext, payment: PaymentRow, exceptionId: string): Promise<PaymentRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', payment.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const exception = current.exceptions.find((entry) => entry.id === exceptionId);
    if (!exception) {
      throw ApiError.notFound(`Exception ${exceptionId.slice(0, 64)} not found on payment ${payment.id}.`);
    }
    if (exception.acceptedAt) return current;
    if (exception.type !== 'paid_late') {
      throw new ApiError(
        'invalid_state',
        `Exception ${exceptionId} is ${exception.type}; only a late payment (paid_late) can be accepted.`,
      );
    }
    if (!canAcceptLatePayment(current.status)) {
      throw new ApiError(
        'invalid_state',
        `A ${current.status} payment cannot take a late transfer; send the transfer back with POST /v1/refunds instead.`,
        { status: current.status },
      );
    }
    const refund = await trx
      .selectFrom('refunds')
      .select('id')
      .where('exception_id', '=', exceptionId)
      .where('status', '<>', 'failed')
      .executeTakeFirst();
    if (refund) throw new ApiError('already_refunded', `Exception ${exceptionId} is sent back by ${refund.id}.`);
    const now = ctx.clock.now();
    const exceptions = current.exceptions.map((entry) =>
      entry.id === exceptionId ? { ...entry, acceptedAt: now.toISOString() } : entry,
    );
    await trx
      .updateTable('payments')
      .set({ exceptions: JSON.stringify(exceptions) })
      .where('id', '=', payment.id)
      .execute();
    const { payment: accepted } = await changePaymentStatus(
      { db: trx, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now },
      payment.id,
      'succeeded',
      { ...paidByException(ctx.chains, exception), tx_hash: exception.txHash, failure_code: null },
      { acceptingLatePayment: true },
    );
    return accepted;
  });
}

export function registerAcceptLatePayment(app: App, ctx: AppContext): void {
  app.post(
    '/v1/payments/:id/exceptions/:exceptionId/accept',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payments'],
        summary: 'Accept a late transfer as the payment',
        description:
          'A transfer that arrived after its payment expired, was cancelled or failed is a `paid_late` exception. ' +
          'Accepting it makes the payment `succeeded` with that transfer (its buyer, token, amount and transaction; ' +
          'fees as for any payment; `payment.succeeded` is sent), and the exception gets `acceptedAt`. It is then ' +
          'the merchant’s money: settled like any payment, refunded as the payment, no longer sent back as an ' +
          'exception. Accepting it again answers the payment unchanged. Refused with 400 `invalid_state` for ' +
          'another type of exception or a payment that succeeded or is still open, and with 409 ' +
          '`already_refunded` once the exception is being sent back.',
        headers: MerchantIdHeader,
        params: AcceptParams,
        response: { 200: PaymentDetail, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { payment, merchant } = await paymentOfRequest(ctx, request, request.params.id);
      const accepted = await acceptLateTransfer(ctx, payment, request.params.exceptionId);
      return toPaymentDetail(accepted, merchant, ctx.chains, ctx.config.baseUrl, ctx.clock.now());
    },
  );
}
