import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { andThen } from '../http/eventually.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantEnvelope, MerchantIdParams, cachedMerchantView } from './merchantResource.ts';
import { merchantOfPartner } from './merchantOfPartner.ts';

export function registerGetMerchant(app: App, ctx: AppContext): void {
  app.get(
    '/v1/merchants/:merchantId',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['merchants'],
        summary: 'Get a merchant',
        params: MerchantIdParams,
        response: { 200: MerchantEnvelope, ...errorResponses(404) },
      },
    },
    (request) =>
      andThen(merchantOfPartner(ctx.merchants, principalOf(request).partnerId, request.params.merchantId), (row) => ({
        merchant: cachedMerchantView(row, ctx.config.baseUrl),
      })),
  );
}
