import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdParams } from './merchantResource.ts';
import { merchantOfPartner } from './merchantOfPartner.ts';
import { CryptoSettlement, FiatSettlement, toCryptoSettlement } from './settlementResource.ts';

export function registerListSettlements(app: App, ctx: AppContext): void {
  app.get(
    '/v1/merchants/:merchantId/settlements',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['settlements'],
        summary: "List the merchant's settlement destinations",
        params: MerchantIdParams,
        response: {
          200: Type.Object({ fiat: Type.Array(FiatSettlement), crypto: Type.Array(CryptoSettlement) }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const merchant = await merchantOfPartner(
        ctx.merchants,
        principalOf(request).partnerId,
        request.params.merchantId,
      );
      const [fiat, crypto] = await Promise.all([
        ctx.db
          .selectFrom('fiat_settlements')
          .selectAll()
          .where('merchant_id', '=', merchant.id)
          .orderBy('id')
          .execute(),
        ctx.db
          .selectFrom('crypto_settlements')
          .selectAll()
          .where('merchant_id', '=', merchant.id)
          .orderBy('id')
          .execute(),
      ]);
      return {
        fiat: fiat.map((row) => ({ id: row.id, status: row.status, bankType: row.bank_type })),
        crypto: crypto.map(toCryptoSettlement),
      };
    },
  );
}
