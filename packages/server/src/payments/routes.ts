import type { App, AppContext } from '../context.ts';
import { registerAcceptLatePayment } from './acceptLatePayment.ts';
import { registerCancelPayment } from './cancelPayment.ts';
import { registerCreatePayment } from './createPayment.ts';
import { registerCountPaymentsByStatus } from './countPaymentsByStatus.ts';
import { registerDailyRevenue } from './dailyRevenue.ts';
import { registerExportPayments } from './exportPayments.ts';
import { registerGetMerchantPaymentStatus } from './getMerchantPaymentStatus.ts';
import { registerGetPayment } from './getPayment.ts';
import { registerGetPaymentStatus } from './getPaymentStatus.ts';
import { registerListDeprecatedMerchantPayments } from './listDeprecatedMerchantPayments.ts';
import { registerListPartnerPayments } from './listPartnerPayments.ts';
import { registerListPayments } from './listPayments.ts';

export function registerPaymentRoutes(app: App, ctx: AppContext): void {
  registerCreatePayment(app, ctx);
  registerGetMerchantPaymentStatus(app, ctx);
  registerGetPaymentStatus(app, ctx);
  registerGetPayment(app, ctx);
  registerCancelPayment(app, ctx);
  registerAcceptLatePayment(app, ctx);
  registerListPayments(app, ctx);
  registerListPartnerPayments(app, ctx);
  registerExportPayments(app, ctx);
  registerDailyRevenue(app, ctx);
  registerCountPaymentsByStatus(app, ctx);
  registerListDeprecatedMerchantPayments(app, ctx);
}
