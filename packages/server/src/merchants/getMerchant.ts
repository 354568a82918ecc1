import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantEnvelope, MerchantIdParams, merchantOfPartner, toMerchant } from './merchantResource.ts';

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
    async (request) => {
      const row = await merchantOfPartner(ctx.merchants, principalOf(request).partnerId, request.params.merchantId);
      return { merchant: toMerchant(row, ctx.config.baseUrl) };
    },
  );
}
