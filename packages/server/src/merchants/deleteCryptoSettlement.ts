import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
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
        response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const merchant = await merchantOfPartner(
        ctx.merchants,
        principalOf(request).partnerId,
        request.params.merchantId,
      );
      const deleted = await ctx.db
        .deleteFrom('crypto_settlements')
        .where('id', '=', request.params.id)
        .where('merchant_id', '=', merchant.id)
        .executeTakeFirst();
      if (!deleted.numDeletedRows)
        throw ApiError.notFound(`Settlement destination ${request.params.id.slice(0, 64)} not found.`);
      return reply.status(204).send(null);
    },
  );
}
