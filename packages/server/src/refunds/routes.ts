import type { App, AppContext } from '../context.ts';
import { registerCreateRefund } from './createRefund.ts';
import { registerGetRefund } from './getRefund.ts';

export function registerRefundRoutes(app: App, ctx: AppContext): void {
  registerCreateRefund(app, ctx);
  registerGetRefund(app, ctx);
}
