import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { andThen, type Eventually } from '../http/eventually.ts';
import { errorResponses } from '../http/schemas.ts';
import type { CachedMerchant } from './merchantCache.ts';
import {
  cachedMerchantWithSettlementsView,
  MerchantIdParams,
  MerchantWithSettlementsEnvelope,
} from './merchantResource.ts';
import { merchantOfPartner } from './merchantOfPartner.ts';

export function registerGetMerchant(app: App, ctx: AppContext): void {
  const withSettlements = (row: CachedMerchant) =>
    andThen(ctx.merchants.settlementsOf(row.id), (settlements) => ({
      merchant: cachedMerchantWithSettlementsView(row, settlements, ctx.config.baseUrl),
    }));
  app.get(
    '/v1/merchants/:merchantId',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['merchants'],
        summary: 'Get a merchant with its settlement destinations',
        params: MerchantIdParams,
        response: { 200: MerchantWithSettlementsEnvelope, ...errorResponses(404) },
      },
    },
    (request) => {
      // Both reads are answered from memory on the hot path, so no promise is made then.
      const merchant: Eventually<CachedMerchant> = merchantOfPartner(
        ctx.merchants,
        principalOf(request).partnerId,
        request.params.merchantId,
        { asResource: true },
      );
      return merchant instanceof Promise ? merchant.then(withSettlements) : withSettlements(merchant);
    },
  );
}
