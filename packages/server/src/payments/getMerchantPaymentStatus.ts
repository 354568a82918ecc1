import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from './merchantHeader.ts';
import { PaymentIdParams, paymentOfRequest } from './paymentLookup.ts';
import { effectiveStatus, isTerminal, merchantPaymentStatusName } from './stateMachine.ts';

export function registerGetMerchantPaymentStatus(app: App, ctx: AppContext): void {
  app.get(
    '/v1/merchant/payment/:id/status',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payments'],
        summary: 'Payment status for the merchant (unpaid status named `pending`)',
        headers: MerchantIdHeader,
        params: PaymentIdParams,
        response: { 200: Type.Object({ status: Type.String(), isFinal: Type.Boolean() }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { payment } = await paymentOfRequest(ctx, request, request.params.id);
      const status = effectiveStatus(payment, ctx.clock.now());
      return { status: merchantPaymentStatusName(status), isFinal: isTerminal(status) };
    },
  );
}
