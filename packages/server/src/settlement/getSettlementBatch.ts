import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { FiatAmount, fiatAmountOf } from '../payments/paymentResource.ts';
import { MinorUnits, SettlementBatch, toSettlementBatch } from './settlementBatchView.ts';

const BatchIdParams = Type.Object({
  batchId: Type.String({ pattern: '^stb_[0-9A-HJKMNP-TV-Z]{26}$', description: 'The batch id (`stb_` and a ULID)' }),
});

/** A payment as a batch settled it. */
const SettledPayment = Type.Object({
  paymentId: Type.String(),
  referenceId: Type.String(),
  fiatAmount: FiatAmount,
  paid: MinorUnits('Token minor units the buyer paid'),
  fees: MinorUnits('Token minor units of its fees'),
  net: MinorUnits('Token minor units this batch owed the merchant for it: paid less fees'),
});

export const SettlementBatchWithPayments = Type.Object({
  ...SettlementBatch.properties,
  payments: Type.Array(SettledPayment, { description: 'Every payment of the batch, by payment id' }),
});

export function registerGetSettlementBatch(app: App, ctx: AppContext): void {
  app.get(
    '/v1/settlements/:batchId',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['settlements'],
        summary: 'A settlement batch with the payments it settles',
        description: "Another partner's batch is 404 not_found, as an unknown one.",
        params: BatchIdParams,
        response: { 200: SettlementBatchWithPayments, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { batchId } = request.params;
      const batch = await ctx.db
        .selectFrom('settlement_batches as batch')
        .innerJoin('merchants as merchant', 'merchant.id', 'batch.merchant_id')
        .selectAll('batch')
        .where('batch.id', '=', batchId)
        .where('merchant.partner_id', '=', principalOf(request).partnerId)
        .executeTakeFirst();
      if (!batch) throw ApiError.notFound(`Settlement batch ${batchId} not found.`);
      const payments = await ctx.db
        .selectFrom('settlement_batch_payments as settled')
        .innerJoin('payments as payment', 'payment.id', 'settled.payment_id')
        .select([
          'payment.id',
          'payment.reference_id',
          'payment.fiat_currency',
          'payment.fiat_value',
          'payment.token_value',
          'payment.fee_total',
          'settled.amount',
        ])
        .where('settled.batch_id', '=', batchId)
        .orderBy('payment.id')
        .execute();
      const fees = payments.reduce((sum, payment) => sum + BigInt(payment.fee_total ?? 0), 0n);
      return {
        ...toSettlementBatch(batch, { paymentCount: payments.length, fees }, ctx.chains),
        payments: payments.map((payment) => ({
          paymentId: payment.id,
          referenceId: payment.reference_id,
          fiatAmount: fiatAmountOf(payment.fiat_currency, payment.fiat_value),
          paid: payment.token_value ?? '0',
          fees: payment.fee_total ?? '0',
          net: payment.amount,
        })),
      };
    },
  );
}
