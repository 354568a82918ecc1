import type { App, AppContext } from '../context.ts';
import { registerListX402Supported } from './listX402Supported.ts';
import { registerSettleX402Payment } from './settleX402Payment.ts';
import { registerVerifyX402Payment } from './verifyX402Payment.ts';

/** x402's HTTP facilitator interface under `/v1/x402`: supported, verify and settle. */
export function registerX402Routes(app: App, ctx: AppContext): void {
  registerListX402Supported(app, ctx);
  registerVerifyX402Payment(app, ctx);
  registerSettleX402Payment(app, ctx);
}
