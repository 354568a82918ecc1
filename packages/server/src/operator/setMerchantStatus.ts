import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { MERCHANT_STATUSES } from '../merchants/merchantResource.ts';
import { setMerchantStatus } from '../merchants/merchantStatus.ts';

const MerchantIdParams = Type.Object({ merchantId: Type.String({ minLength: 1, maxLength: 64 }) });
const StatusBody = Type.Object(
  { status: Type.Union(MERCHANT_STATUSES.map((status) => Type.Literal(status))) },
  { additionalProperties: false },
);

/**
 * Suspends, reactivates or deactivates a merchant of any partner, as `paygate merchant set-status` does: a
 * suspended merchant's payments take no new payments (403 `merchant_not_active`); this process forgets the merchant
 * at once and the others on the merchant row's change notification.
 */
export function registerSetMerchantStatus(app: App, ctx: AppContext): void {
  app.put(
    '/operator/api/merchants/:merchantId/status',
    {
      schema: {
        tags: ['operator'],
        summary: "Change a merchant's status",
        params: MerchantIdParams,
        body: StatusBody,
        response: {
          200: Type.Object({ merchantId: Type.String(), status: Type.String() }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const { merchantId } = request.params;
      const { status } = request.body;
      if (!(await setMerchantStatus(ctx.db, merchantId, status)))
        throw ApiError.notFound(`Merchant ${merchantId} does not exist.`, 'merchant_not_found');
      // This process answers its next request with the new status, not one its notification has yet to reach.
      ctx.merchants.invalidate(merchantId);
      return { merchantId, status };
    },
  );
}
