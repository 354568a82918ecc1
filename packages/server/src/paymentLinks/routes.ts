import type { App, AppContext } from '../context.ts';
import { registerCreatePaymentLink } from './createPaymentLink.ts';
import { registerDeactivatePaymentLink } from './deactivatePaymentLink.ts';
import { registerGetPaymentLink } from './getPaymentLink.ts';
import { registerListPaymentLinks } from './listPaymentLinks.ts';
import { registerUpdatePaymentLink } from './updatePaymentLink.ts';

/** The merchant API of payment links; their public page is the checkout's (`checkout/showPaymentLinkPage.ts`). */
export function registerPaymentLinkRoutes(app: App, ctx: AppContext): void {
  registerCreatePaymentLink(app, ctx);
  registerListPaymentLinks(app, ctx);
  registerGetPaymentLink(app, ctx);
  registerUpdatePaymentLink(app, ctx);
  registerDeactivatePaymentLink(app, ctx);
}
