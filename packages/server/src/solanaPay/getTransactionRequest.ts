import { Type } from '@sinclair/typebox';
import { checkoutAssets } from '../checkout/assets.ts';
import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { logoUrl } from '../merchants/merchantResource.ts';
import { merchantOfPayment } from '../gateway/gatewayPayment.ts';
import { openCors, solanaPayRequestOf, TransactionRequestParams } from './transactionRequestSchemas.ts';

/** Solana Pay transaction request, first call: who is paid, for the wallet to show before it asks to pay. */
export function registerGetTransactionRequest(app: App, ctx: AppContext): void {
  app.get(
    '/v1/solana-pay/requests/:reference',
    {
      config: { auth: false },
      onRequest: openCors,
      schema: {
        tags: ['solana-pay'],
        summary: 'Solana Pay transaction request: label and icon',
        description:
          "The first call of a Solana Pay transaction request (the `solana:` link of this URL): the merchant's name and an icon for the wallet to show. Open to any origin; rate limited per IP.",
        params: TransactionRequestParams,
        response: {
          200: Type.Object({
            label: Type.String({ description: "The merchant's name" }),
            icon: Type.String({ description: "The merchant's logo, or the service's icon (SVG)" }),
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const solanaPay = await solanaPayRequestOf(ctx, request.params.reference);
      const payment = await ctx.db
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', solanaPay.payment_id)
        .executeTakeFirstOrThrow();
      const merchant = await merchantOfPayment(ctx, payment);
      const icon = merchant.logo_file
        ? logoUrl(ctx.config.baseUrl, merchant.logo_file)
        : `${ctx.config.checkoutUrl.replace(/\/+$/, '')}/assets/checkout/${(await checkoutAssets()).icon.name}`;
      return { label: merchant.name, icon };
    },
  );
}
