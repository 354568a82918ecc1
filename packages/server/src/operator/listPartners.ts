import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App, AppContext } from '../context.ts';
import { formatPartnerDataThreshold } from '../gateway/dataCollection/thresholdSettings.ts';
import { errorResponses } from '../http/schemas.ts';
import { FeeScheduleView, managedByOperator } from './partnerView.ts';

const PartnerSummary = Type.Object({
  partnerId: Type.String(),
  name: Type.String(),
  pinnedVersion: Type.String(),
  createdAt: Type.String({ description: 'ISO 8601 timestamp' }),
  merchants: Type.Integer({ description: 'Merchants not deleted' }),
  activeKeys: Type.Integer({ description: 'API keys not revoked' }),
  fees: FeeScheduleView,
  dataThreshold: Type.String({
    description:
      'Buyers are asked for their details above it: `USD:100000`, `100000` (the payment’s currency) or `none`',
  }),
});

/**
 * Every partner an operator manages (not the service's own checkout partner), oldest first, with its fee schedule,
 * its buyer-data threshold and how many merchants and live keys it has.
 */
export function registerListPartners(app: App, ctx: AppContext): void {
  app.get(
    '/operator/api/partners',
    {
      schema: {
        tags: ['operator'],
        summary: "Every partner but the service's own, with its fees, buyer-data threshold, merchants and keys",
        response: { 200: Type.Object({ data: Type.Array(PartnerSummary) }), ...errorResponses() },
      },
    },
    async () => {
      const partners = await ctx.db
        .selectFrom('partners')
        .leftJoin('partner_fee_schedules as schedule', 'schedule.partner_id', 'partners.id')
        .select([
          'partners.id',
          'partners.name',
          'partners.pinned_version',
          'partners.created_at',
          'partners.data_threshold_currency',
          'partners.data_threshold_amount',
          sql<string>`coalesce(schedule.percentage, '0')`.as('percentage'),
          sql<string>`(SELECT count(*) FROM merchants WHERE merchants.partner_id = partners.id AND merchants.deleted_at IS NULL)`.as(
            'merchants',
          ),
          sql<string>`(SELECT count(*) FROM api_keys WHERE api_keys.partner_id = partners.id AND api_keys.revoked_at IS NULL)`.as(
            'active_keys',
          ),
          sql<{ currency: string; amount: string }[]>`coalesce((
            SELECT json_agg(json_build_object('currency', fee.currency, 'amount', fee.amount::text) ORDER BY fee.currency)
            FROM partner_fixed_fees fee WHERE fee.partner_id = partners.id
          ), '[]'::json)`.as('fixed'),
        ])
        .where(managedByOperator)
        .orderBy('partners.id')
        .execute();
      return {
        data: partners.map((row) => ({
          partnerId: row.id,
          name: row.name,
          pinnedVersion: row.pinned_version,
          createdAt: row.created_at.toISOString(),
          merchants: Number(row.merchants),
          activeKeys: Number(row.active_keys),
          fees: { percentage: row.percentage, fixed: row.fixed },
          dataThreshold: formatPartnerDataThreshold(
            row.data_threshold_amount === null
              ? null
              : { currency: row.data_threshold_currency, amount: BigInt(row.data_threshold_amount) },
          ),
        })),
      };
    },
  );
}
