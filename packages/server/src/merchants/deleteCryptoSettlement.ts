import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { DeletedResource } from './merchantResource.ts';
import { merchantOfPartner } from './merchantOfPartner.ts';
import { SettlementParams } from './updateCryptoSettlement.ts';

export function registerDeleteCryptoSettlement(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/merchants/:merchantId/settlements/crypto/:id',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['settlements'],
        summary: 'Remove a crypto settlement destination',
        params: SettlementParams,
        response: { 200: DeletedResource, ...errorResponses(404) },
      },
    },
    async (request) => {
      const merchant = await merchantOfPartner(
        ctx.merchants,
        principalOf(request).partnerId,
        request.params.merchantId,
        { asResource: true },
      );
      const deleted = await ctx.db
        .deleteFrom('crypto_settlements')
        .where('id', '=', request.params.id)
        .where('merchant_id', '=', merchant.id)
        .returning('id')
        .executeTakeFirst();
      if (!deleted) throw ApiError.notFound(`Settlement destination ${request.params.id.slice(0, 64)} not found.`);
      ctx.merchants.invalidate(merchant.id);
      return { id: deleted.id, deleted: true as const };
    },
  );
}
