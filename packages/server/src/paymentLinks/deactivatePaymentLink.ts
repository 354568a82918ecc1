import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { PaymentLinkParams } from './paymentLinkOfPartner.ts';
import { PaymentLink, toPaymentLinkView, usesOfLinks } from './paymentLinkResource.ts';

export function registerDeactivatePaymentLink(app: App, ctx: AppContext): void {
  app.post(
    '/v1/payment-links/:id/deactivate',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['payment links'],
        summary: 'Deactivate a payment link',
        description:
          'paygate extension. The page then says the link takes no payments; payments it made before stay payable. Deactivating an inactive link changes nothing.',
        params: PaymentLinkParams,
        response: { 200: PaymentLink, ...errorResponses(404) },
      },
    },
    async (request) => {
      const now = ctx.clock.now();
      const link = await ctx.db
        .updateTable('payment_links')
        .set((eb) => ({
          active: false,
          updated_at: eb.case().when('active', '=', true).then(now).else(eb.ref('updated_at')).end(),
        }))
        .where('id', '=', request.params.id)
        .where('partner_id', '=', principalOf(request).partnerId)
        .returningAll()
        .executeTakeFirst();
      if (!link) throw new ApiError('not_found', `Payment link ${request.params.id.slice(0, 64)} not found.`);
      const uses = await usesOfLinks(ctx.db, [link.id], now);
      return toPaymentLinkView(link, uses.get(link.id), { checkoutUrl: ctx.config.checkoutUrl, now });
    },
  );
}
