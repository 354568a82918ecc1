import type { App, AppContext } from '../context.ts';
import type { CursorCodec } from '../http/cursor.ts';
import { registerCancelPayment } from './cancelPayment.ts';
import { registerCreatePayment } from './createPayment.ts';
import { registerGetMerchantPaymentStatus } from './getMerchantPaymentStatus.ts';
import { registerGetPayment } from './getPayment.ts';
import { registerGetPaymentStatus } from './getPaymentStatus.ts';
import { registerListPayments } from './listPayments.ts';
import type { PaymentStatusWaiter } from './statusWaiter.ts';

export function registerPaymentRoutes(
  app: App,
  ctx: AppContext,
  cursors: CursorCodec,
  waiter: PaymentStatusWaiter,
): void {
  registerCreatePayment(app, ctx);
  registerGetMerchantPaymentStatus(app, ctx);
  registerGetPaymentStatus(app, ctx, waiter);
  registerGetPayment(app, ctx);
  registerCancelPayment(app, ctx);
  registerListPayments(app, ctx, cursors);
}
