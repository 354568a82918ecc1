import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { listStats } from '../payments/listStatistics.ts';
import { PaymentLinkParams, paymentLinkOfPartner } from './paymentLinkOfPartner.ts';
import { PaymentLink, toPaymentLinkView, usesOfLinks } from './paymentLinkResource.ts';

export function registerGetPaymentLink(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payment-links/:id',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['payment links'],
        summary: 'A payment link, with the stats of its payments',
        description:
          "paygate extension. stats are those GET /v1/payments?paymentLinkId= shows: the link's payments and their revenue per currency.",
        params: PaymentLinkParams,
        response: { 200: PaymentLink, ...errorResponses(404) },
      },
    },
    async (request) => {
      const link = await paymentLinkOfPartner(ctx.db, principalOf(request).partnerId, request.params.id);
      const now = ctx.clock.now();
      const [uses, stats] = await Promise.all([
        usesOfLinks(ctx.db, [link.id], now),
        listStats(ctx, { scope: { merchantIds: [link.merchant_id] }, paymentLinkId: link.id, now }),
      ]);
      return { ...toPaymentLinkView(link, uses.get(link.id), { checkoutUrl: ctx.config.checkoutUrl, now }), stats };
    },
  );
}
