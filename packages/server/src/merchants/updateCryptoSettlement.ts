import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { merchantOfPartner } from './merchantOfPartner.ts';
import {
  CryptoSettlement,
  destinationIssue,
  SettlementDestination,
  settlementToken,
  toCryptoSettlement,
} from './settlementResource.ts';

export const SettlementParams = Type.Object({
  merchantId: Type.String({ maxLength: 64 }),
  id: Type.String({ maxLength: 64 }),
});

export function registerUpdateCryptoSettlement(app: App, ctx: AppContext): void {
  app.put(
    '/v1/merchants/:merchantId/settlements/crypto/:id',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['settlements'],
        summary: 'Change the destination of a crypto settlement',
        description: 'The new destination receives later settlement batches only.',
        params: SettlementParams,
        body: Type.Object({ destination: SettlementDestination }, { additionalProperties: false }),
        response: { 200: CryptoSettlement, ...errorResponses(404) },
      },
    },
    async (request) => {
      const merchant = await merchantOfPartner(
        ctx.merchants,
        principalOf(request).partnerId,
        request.params.merchantId,
        { asResource: true },
      );
      const current = await ctx.db
        .selectFrom('crypto_settlements')
        .selectAll()
        .where('id', '=', request.params.id)
        .where('merchant_id', '=', merchant.id)
        .executeTakeFirst();
      if (!current) throw ApiError.notFound(`Settlement destination ${request.params.id.slice(0, 64)} not found.`);
      const token = settlementToken(ctx.chains, current.asset);
      const issue = token && destinationIssue(ctx.chains, token, request.body.destination, 'destination');
      if (!token)
        throw ApiError.validation([
          { field: 'destination', message: `${current.asset} is no longer a supported asset` },
        ]);
      if (issue) throw ApiError.validation([issue]);
      await ctx.screening.check('settlement_destination', [request.body.destination], { merchantId: merchant.id });
      const row = await ctx.db
        .updateTable('crypto_settlements')
        .set({ destination: request.body.destination, updated_at: new Date() })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      ctx.merchants.invalidate(merchant.id);
      return toCryptoSettlement(row);
    },
  );
}
