import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { FeeScheduleError } from '../settlement/fees.ts';
import { setFeeSchedule } from '../settlement/feeSchedules.ts';
import { FeeScheduleView, PartnerIdParams, requirePartner, toFeeScheduleView } from './partnerView.ts';

const FeesBody = Type.Object(
  {
    percentage: Type.String({ minLength: 1, maxLength: 16, description: 'Decimal text, e.g. "1.5"' }),
    fixed: Type.Array(
      Type.Object(
        {
          currency: Type.String({ pattern: '^[A-Z]{3}$' }),
          amount: Type.String({ pattern: '^(0|[1-9][0-9]{0,17})$', description: 'Minor units of the currency' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
  },
  { additionalProperties: false },
);

/**
 * Replaces a partner's whole fee schedule, as `paygate partner set-fees` does; it applies to payments that succeed
 * from now on.
 */
export function registerSetPartnerFees(app: App, ctx: AppContext): void {
  app.put(
    '/operator/api/partners/:partnerId/fees',
    {
      schema: {
        tags: ['operator'],
        summary: "Replace a partner's fee schedule",
        params: PartnerIdParams,
        body: FeesBody,
        response: { 200: FeeScheduleView, ...errorResponses(404) },
      },
    },
    async (request) => {
      await requirePartner(ctx.db, request.params.partnerId);
      try {
        const schedule = await setFeeSchedule(ctx.db, request.params.partnerId, {
          percentage: request.body.percentage,
          fixed: request.body.fixed.map((fee) => ({ currency: fee.currency, amount: BigInt(fee.amount) })),
        });
        return toFeeScheduleView(schedule);
      } catch (error) {
        if (error instanceof FeeScheduleError) throw ApiError.validation([{ field: 'body', message: error.message }]);
        throw error;
      }
    },
  );
}
