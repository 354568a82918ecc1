import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdParams } from './merchantResource.ts';
import { merchantOfPartner } from './merchantOfPartner.ts';
import { SettlementDestinations, settlementDestinationRowsOf, toSettlementDestinations } from './settlementResource.ts';

export function registerListSettlements(app: App, ctx: AppContext): void {
  app.get(
    '/v1/merchants/:merchantId/settlements',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['settlements'],
        summary: "List the merchant's settlement destinations",
        params: MerchantIdParams,
        response: { 200: SettlementDestinations, ...errorResponses(404) },
      },
    },
    async (request) => {
      const merchant = await merchantOfPartner(
        ctx.merchants,
        principalOf(request).partnerId,
        request.params.merchantId,
        { asResource: true },
      );
      return toSettlementDestinations(await settlementDestinationRowsOf(ctx.db, merchant.id));
    },
  );
}
