import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { recordEvent } from '../webhooks/events.ts';
import { DeletedResource, MerchantIdParams, toMerchant } from './merchantResource.ts';
import { merchantOfPartner } from './merchantOfPartner.ts';

export function registerDeleteMerchant(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/merchants/:merchantId',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['merchants'],
        summary: 'Delete a merchant',
        description:
          'The merchant leaves the list and its own routes, and takes no new payments; its payments and their history stay readable with its Merchant-Id. Deleting it again answers the same.',
        params: MerchantIdParams,
        response: { 200: DeletedResource, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const merchant = await merchantOfPartner(ctx.merchants, partnerId, request.params.merchantId, {
        includeDeleted: true,
        asResource: true,
      });
      if (merchant.deleted_at === null) {
        // Kept as a row, so its payments, settlements and events keep their merchant.
        await ctx.db.transaction().execute(async (trx) => {
          const now = ctx.clock.now();
          const row = await trx
            .updateTable('merchants')
            .set({ deleted_at: now, updated_at: now })
            .where('id', '=', merchant.id)
            .where('deleted_at', 'is', null)
            .returningAll()
            .executeTakeFirst();
          // No row: a concurrent request deleted it first and recorded the event.
          if (!row) return;
          const object = { ...toMerchant(row, ctx.config.baseUrl), deleted: true };
          await recordEvent(trx, { partnerId, merchantId: merchant.id, type: 'merchant.updated', object });
        });
        ctx.merchants.invalidate(merchant.id);
      }
      return { id: merchant.id, deleted: true as const };
    },
  );
}
