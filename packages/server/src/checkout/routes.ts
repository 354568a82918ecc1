import type { App, AppContext } from '../context.ts';
import { checkoutPathPrefix } from './checkoutPolicy.ts';
import { registerServeCheckoutAsset } from './serveCheckoutAsset.ts';
import { registerShowCheckoutPage } from './showCheckoutPage.ts';
import { registerShowLandingPage } from './showLandingPage.ts';
import { registerShowPaymentLinkPage } from './showPaymentLinkPage.ts';

/**
 * Buyer pages at the path of `CHECKOUT_URL` (D1), beside the API on the same process, which they call (cross-origin
 * calls to the gateway are allowed by `checkoutGatewayCors` in the service's request hook); the service's landing
 * page at `/`; payment links' pages at `{checkout}/l/<id>`.
 */
export function registerCheckoutRoutes(app: App, ctx: AppContext): void {
  const prefix = checkoutPathPrefix(ctx.config.checkoutUrl);
  registerShowCheckoutPage(app, ctx, prefix);
  registerShowLandingPage(app, ctx, prefix);
  registerShowPaymentLinkPage(app, ctx, prefix);
  registerServeCheckoutAsset(app, prefix);
}
