import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from './merchantHeader.ts';
import { PaymentIdParams, paymentOfRequest } from './paymentLookup.ts';
import { PaymentRefundFields, refundsOfPayment } from '../refunds/paymentRefunds.ts';
import { PaymentDetail, toPaymentDetail } from './paymentResource.ts';
import { refundAmountsOf } from './refundTotals.ts';

const PaymentWithRefunds = Type.Object({ ...PaymentDetail.properties, ...PaymentRefundFields });

export function registerGetPayment(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payments/:id',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payments'],
        summary: 'A payment, as the merchant payment list shows it, with what was paid, why it failed and its refunds',
        headers: MerchantIdHeader,
        params: PaymentIdParams,
        response: { 200: PaymentWithRefunds, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { payment, merchant } = await paymentOfRequest(ctx, request, request.params.id);
      const { refunds, totals } = await refundsOfPayment(ctx.db, payment);
      return {
        ...toPaymentDetail(payment, merchant, ctx.chains, ctx.config.baseUrl, ctx.clock.now()),
        ...refundAmountsOf(payment.fiat_currency, totals),
        ...(refunds ? { refunds } : {}),
      };
    },
  );
}
