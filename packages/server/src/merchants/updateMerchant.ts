import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { DisplayName, displayNameToStore } from '../http/displayName.ts';
import { ApiError } from '../http/errors.ts';
import { recordEvent } from '../webhooks/events.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { fetchMerchantLogo, storeLogo } from './merchantLogo.ts';
import { IconUrl, MerchantEmail, MerchantEnvelope, MerchantIdParams, toMerchant } from './merchantResource.ts';
import { merchantMissing, merchantOfPartner } from './merchantOfPartner.ts';

const UpdateMerchantBody = Type.Object(
  {
    merchantName: Type.Optional(Nullable(DisplayName)),
    merchantEmail: Type.Optional(Nullable(MerchantEmail)),
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
          'At least one field. The logo is fetched during the call; send iconUrl again to refresh it, or null to remove it. A null merchantName or merchantEmail leaves it as it is. The name is stored without surrounding white space.',
        params: MerchantIdParams,
        body: UpdateMerchantBody,
        response: { 200: MerchantEnvelope, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const { iconUrl } = request.body;
      // A name or email cannot be removed, so null means "unchanged", as when absent.
      const merchantName = request.body.merchantName ?? undefined;
      const merchantEmail = request.body.merchantEmail ?? undefined;
      if (merchantName === undefined && merchantEmail === undefined && iconUrl === undefined) {
        throw ApiError.validation([
          { field: 'body', message: 'send at least one of merchantName, merchantEmail, iconUrl' },
        ]);
      }
      const name = merchantName === undefined ? undefined : displayNameToStore(merchantName, 'merchantName');
      const merchant = await merchantOfPartner(ctx.merchants, partnerId, request.params.merchantId, {
        asResource: true,
      });
      // Any string is a URL to fetch (an empty one is refused there as not a URL); null removes the logo.
      const logoFile =
        typeof iconUrl === 'string' ? await storeLogo(ctx.db, await fetchMerchantLogo(ctx, iconUrl)) : iconUrl;
      const merchantView = await ctx.db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable('merchants')
          .set({
            ...(name !== undefined ? { name } : {}),
            ...(merchantEmail !== undefined ? { email: merchantEmail } : {}),
            ...(logoFile !== undefined ? { logo_file: logoFile } : {}),
            updated_at: new Date(),
          })
          .where('id', '=', merchant.id)
          // Deleted by a concurrent request since it was read.
          .where('deleted_at', 'is', null)
          .returningAll()
          .executeTakeFirst();
        if (!row) throw merchantMissing(merchant.id, { asResource: true });
        const view = toMerchant(row, ctx.config.baseUrl);
        await recordEvent(trx, { partnerId, merchantId: merchant.id, type: 'merchant.updated', object: view });
        return view;
      });
      ctx.merchants.invalidate(merchant.id);
      return { merchant: merchantView };
    },
  );
}
