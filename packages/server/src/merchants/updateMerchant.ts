import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { recordEvent } from '../webhooks/events.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { fetchMerchantLogo, storeLogo } from './merchantLogo.ts';
import {
  IconUrl,
  MerchantEmail,
  MerchantEnvelope,
  MerchantIdParams,
  MerchantName,
  toMerchant,
} from './merchantResource.ts';
import { merchantOfPartner } from './merchantOfPartner.ts';

const UpdateMerchantBody = Type.Object(
  {
    merchantName: Type.Optional(MerchantName),
    merchantEmail: Type.Optional(MerchantEmail),
    iconUrl: Type.Optional(Nullable(IconUrl)),
  },
  { additionalProperties: false },
);

export function registerUpdateMerchant(app: App, ctx: AppContext): void {
  app.patch(
    '/v1/merchants/:merchantId',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['merchants'],
        summary: 'Update a merchant',
        description:
          'At least one field. The logo is fetched during the call; send iconUrl again to refresh it, or null to remove it.',
        params: MerchantIdParams,
        body: UpdateMerchantBody,
        response: { 200: MerchantEnvelope, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const { merchantName, merchantEmail, iconUrl } = request.body;
      if (merchantName === undefined && merchantEmail === undefined && iconUrl === undefined) {
        throw ApiError.validation([
          { field: 'body', message: 'send at least one of merchantName, merchantEmail, iconUrl' },
        ]);
      }
      const merchant = await merchantOfPartner(ctx.merchants, partnerId, request.params.merchantId);
      const logoFile = iconUrl ? await storeLogo(ctx.db, await fetchMerchantLogo(ctx, iconUrl)) : iconUrl;
      const merchantView = await ctx.db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable('merchants')
          .set({
            ...(merchantName !== undefined ? { name: merchantName } : {}),
            ...(merchantEmail !== undefined ? { email: merchantEmail } : {}),
            ...(logoFile !== undefined ? { logo_file: logoFile } : {}),
            updated_at: new Date(),
          })
          .where('id', '=', merchant.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        const view = toMerchant(row, ctx.config.baseUrl);
        await recordEvent(trx, { partnerId, merchantId: merchant.id, type: 'merchant.updated', object: view });
        return view;
      });
      ctx.merchants.invalidate(merchant.id);
      return { merchant: merchantView };
    },
  );
}
