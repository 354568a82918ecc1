import type { App, AppContext } from '../context.ts';
import { registerCancelGatewayPayment } from './cancelGatewayPayment.ts';
import { registerConfirmPayment } from './confirmPayment.ts';
import { registerFetchPaymentActions } from './fetchPaymentActions.ts';
import { registerGetGatewayPayment } from './getGatewayPayment.ts';
import { registerGetGatewayPaymentStatus } from './getGatewayPaymentStatus.ts';
import { registerGetPaymentOptions } from './getPaymentOptions.ts';
import { registerSolanaPayRoutes } from '../solanaPay/routes.ts';

/** The wallet-side gateway (D10 to D12): callable with an API key or a wallet app's App-Id and Client-Id. */
export function registerGatewayRoutes(app: App, ctx: AppContext): void {
  registerGetGatewayPayment(app, ctx);
  registerGetPaymentOptions(app, ctx);
  registerFetchPaymentActions(app, ctx);
  registerConfirmPayment(app, ctx);
  registerGetGatewayPaymentStatus(app, ctx);
  registerCancelGatewayPayment(app, ctx);
  registerSolanaPayRoutes(app, ctx);
}
