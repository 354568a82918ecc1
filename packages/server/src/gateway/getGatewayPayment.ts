import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { logoUrl } from '../merchants/merchantResource.ts';
import { FiatAmount, fiatAmountOf, type MerchantRow, type PaymentRow } from '../payments/paymentResource.ts';
import { buyerFacingStatus } from '../payments/stateMachine.ts';
import { StatusVersion, gatewayPaymentOf, merchantOfPayment, statusVersion } from './gatewayPayment.ts';
import { GatewayPaymentParams } from './gatewaySchemas.ts';
import { ReceivedPart, receivedParts } from '../deposits/receivedParts.ts';

/** The provider of a buyer who paid by a plain transfer (a deposit address, Solana Pay): any wallet may have sent it. */
const UNKNOWN_PROVIDER = 'Unknown wallet';

export const GatewayPaymentView = Type.Object({
  status: Type.String(),
  amount: FiatAmount,
  expiresAt: Type.Integer({ description: 'Unix seconds' }),
  merchant: Type.Object({ name: Type.String(), iconUrl: Nullable(Type.String()) }),
  buyer: Type.Optional(
    Type.Object({
      accountCaip10: Type.String(),
      accountProviderName: Type.String({
        description: `The wallet app the buyer confirmed from, or the partner whose API key confirmed; "${UNKNOWN_PROVIDER}" for a transfer made from any wallet`,
      }),
      accountProviderIcon: Type.Optional(Type.String()),
    }),
  ),
});

/** What a wallet shows before the buyer chooses how to pay (D10). */
export function toGatewayPaymentView(payment: PaymentRow, merchant: MerchantRow, baseUrl: string, now: Date) {
  return {
    status: buyerFacingStatus(payment, now),
    amount: fiatAmountOf(payment.fiat_currency, payment.fiat_value),
    expiresAt: Math.floor(payment.expires_at.getTime() / 1000),
    merchant: { name: merchant.name, iconUrl: merchant.logo_file ? logoUrl(baseUrl, merchant.logo_file) : null },
    ...(payment.buyer_account
      ? {
          buyer: {
            accountCaip10: payment.buyer_account,
            accountProviderName: payment.buyer_provider_name || UNKNOWN_PROVIDER,
            ...(payment.buyer_provider_icon ? { accountProviderIcon: payment.buyer_provider_icon } : {}),
          },
        }
      : {}),
  };
}

export function registerGetGatewayPayment(app: App, ctx: AppContext): void {
  app.get(
    '/v1/gateway/payment/:id',
    {
      config: { auth: { scope: 'gateway', allowApp: true } },
      schema: {
        tags: ['gateway'],
        summary: 'A payment as the wallet displays it',
        params: GatewayPaymentParams,
        response: {
          200: Type.Object({
            ...GatewayPaymentView.properties,
            received: Type.Optional(Type.Array(ReceivedPart)),
            version: StatusVersion,
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const payment = await gatewayPaymentOf(ctx, request.params.id);
      const now = ctx.clock.now();
      const view = {
        ...toGatewayPaymentView(payment, await merchantOfPayment(ctx, payment), ctx.config.baseUrl, now),
        version: statusVersion(payment, now),
      };
      // A page opened again after part of the payment arrived asks for the rest from its first render.
      const received = view.status === 'requires_action' ? await receivedParts(ctx, payment) : [];
      return received.length ? { ...view, received } : view;
    },
  );
}
