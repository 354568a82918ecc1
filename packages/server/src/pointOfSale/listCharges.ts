import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { ChargeView, chargesOfDeviceSince, chargeTotalsOfDeviceSince, toChargeView } from './charges.ts';
import { deviceOf, deviceWithMerchant } from './devices.ts';

/** Reaches back over any time zone's day and a little more, and no further: the till's day, not its history. */
const LOOKBACK_MS = 48 * 3_600_000;
const MOST_CHARGES = 500;

const ListChargesQuery = Type.Object(
  {
    from: Type.String({
      format: 'date-time',
      description: "The start of the device's day (its local midnight), at most 48 hours ago",
    }),
  },
  { additionalProperties: false },
);

const ChargeTotals = Type.Object({
  unit: Type.String({ description: '`iso4217/<CODE>`, the device’s currency' }),
  succeededCount: Type.Integer(),
  succeededAmount: Type.String({ description: 'Minor units taken: the succeeded charges, tips included' }),
  succeededTips: Type.String({ description: 'Minor units of tips among them' }),
  openCount: Type.Integer({ description: 'Charges still waiting for the buyer or being paid' }),
});

/** The device's charges since the start of its day, newest first, with what they took. */
export function registerListCharges(app: App, ctx: AppContext): void {
  app.get(
    '/v1/point-of-sale/charges',
    {
      config: { auth: { device: true } },
      schema: {
        tags: ['point of sale'],
        summary: "The device's charges of the day, with totals",
        querystring: ListChargesQuery,
        response: {
          200: Type.Object({ data: Type.Array(ChargeView), totals: ChargeTotals }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { deviceId } = deviceOf(request);
      const now = ctx.clock.now();
      const from = new Date(request.query.from);
      if (Number.isNaN(from.getTime()) || from.getTime() < now.getTime() - LOOKBACK_MS) {
        throw ApiError.validation([{ field: 'from', message: 'must be a time within the last 48 hours' }]);
      }
      const device = await deviceWithMerchant(ctx, deviceId);
      const [rows, totals] = await Promise.all([
        chargesOfDeviceSince(ctx, deviceId, from, MOST_CHARGES),
        chargeTotalsOfDeviceSince(ctx, deviceId, from, now),
      ]);
      return {
        data: rows.map((row) => toChargeView(ctx, row, now)),
        totals: { unit: `iso4217/${device.currency}`, ...totals },
      };
    },
  );
}
