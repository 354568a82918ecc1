import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from './merchantHeader.ts';
import { PaymentIdParams, paymentOfRequest } from './paymentLookup.ts';
import { PaymentDetail, toPaymentDetail } from './paymentResource.ts';

export function registerGetPayment(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payments/:id',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payments'],
        summary: 'A payment, as the merchant payment list shows it, with what was paid and why it failed',
        headers: MerchantIdHeader,
        params: PaymentIdParams,
        response: { 200: PaymentDetail, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { payment, merchant } = await paymentOfRequest(ctx, request, request.params.id);
      return toPaymentDetail(payment, merchant, ctx.chains, ctx.config.baseUrl, ctx.clock.now());
    },
  );
}
