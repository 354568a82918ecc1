import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from './merchantHeader.ts';
import { PaymentIdParams, paymentOfRequest } from './paymentLookup.ts';
import { PaymentItem, toPaymentItem } from './paymentResource.ts';

export function registerGetPayment(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payments/:id',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payments'],
        summary: 'A payment, as the merchant payment list shows it',
        headers: MerchantIdHeader,
        params: PaymentIdParams,
        response: { 200: PaymentItem, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { payment, merchant } = await paymentOfRequest(ctx, request, request.params.id);
      return toPaymentItem(payment, merchant, ctx.chains, ctx.config.baseUrl, ctx.clock.now());
    },
  );
}
