import { Type } from '@sinclair/typebox';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import {
  applyFilters,
  type Filters,
  filtersOf,
  ListPaymentsQuery,
  partnerListScope,
  MerchantIdFilter,
} from './listFilters.ts';
import { dailyTotals, isoDay, wholeDaysOf } from './listStatistics.ts';

const { startTs, endTs, token_symbol, network } = ListPaymentsQuery.properties;

const RevenueQuery = Type.Object(
  {
    startTs,
    endTs,
    token_symbol,
    network,
    merchantId: MerchantIdFilter,
  },
  { additionalProperties: false },
);

const RevenueDay = Type.Object({
  day: Type.String({ description: 'UTC day the payments were created, YYYY-MM-DD' }),
  currency: Type.String({ description: 'ISO 4217 code of the payments’ fiat amounts' }),
  tokenSymbol: Type.String({ description: 'The token they were paid in' }),
  network: Type.String({ description: 'CAIP-2 id of the network they were paid on' }),
  payments: Type.Integer({ description: 'Succeeded payments' }),
  revenue: Type.String({ description: 'Their fiat amounts added up, in minor units of the currency' }),
});

const RevenueDays = Type.Object({ data: Type.Array(RevenueDay) });

type RevenueRow = {
  day: string;
  currency: string;
  tokenSymbol: string;
  network: string;
  payments: string;
  revenue: string;
};

/** A day, currency, token and network: the key of one entry of the series. */
const keyOf = (row: RevenueRow) => `${row.day}|${row.currency}|${row.tokenSymbol}|${row.network}`;

/**
 * Succeeded payments and their revenue per UTC day, currency, token and network over the filtered set, for a chart:
 * whole days from the daily totals the list's statistics read (folded and not yet folded), the partial first and
 * last day from the payments themselves. Each currency's days add up to the list's `totalRevenue` for the same
 * filters with `status=succeeded`.
 */
async function revenueByDay(ctx: AppContext, filters: Filters): Promise<RevenueRow[]> {
  const { from, to } = wholeDaysOf(filters);
  const succeeded: Filters = { ...filters, statuses: ['succeeded'] };
  const fromPayments = (range?: (eb: ExpressionBuilder<Database, 'payments'>) => Expression<SqlBool>) =>
    applyFilters(ctx.db.selectFrom('payments'), succeeded)
      .$if(range !== undefined, (query) => query.where(range as NonNullable<typeof range>))
      .select([
        sql<string>`to_char(payments.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('day'),
        'payments.fiat_currency as currency',
        sql<string>`coalesce(upper(payments.token_symbol), '')`.as('tokenSymbol'),
        sql<string>`coalesce(payments.network, '')`.as('network'),
        sql<string>`count(*)`.as('payments'),
        sql<string>`sum(payments.fiat_value)`.as('revenue'),
      ])
      .groupBy([sql`1`, sql`2`, sql`3`, sql`4`])
      .execute();
  if (from && to && from >= to) return fromPayments();

  const days = dailyTotals(ctx, filters.scope)
    .select([
      sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'),
      'fiat_currency as currency',
      'token_symbol as tokenSymbol',
      'network',
      sql<string>`sum(payments)`.as('payments'),
      sql<string>`sum(fiat_total)`.as('revenue'),
    ])
    .where('status', '=', 'succeeded')
    .$if(from !== undefined, (query) => query.where('day', '>=', sql<Date>`${isoDay(from as Date)}::date`))
    .$if(to !== undefined, (query) => query.where('day', '<', sql<Date>`${isoDay(to as Date)}::date`))
    .$if(filters.symbols !== undefined, (query) => query.where('token_symbol', 'in', filters.symbols as string[]))
    .$if(filters.networks !== undefined, (query) => query.where('network', 'in', filters.networks as string[]))
    .groupBy([sql`1`, sql`2`, sql`3`, sql`4`])
    .execute();
  const edges =
    from || to
      ? fromPayments((eb) =>
          eb.or([
            ...(from ? [eb('payments.created_at', '<', from)] : []),
            ...(to ? [eb('payments.created_at', '>=', to)] : []),
          ]),
        )
      : Promise.resolve([]);
  // A day's folded total and its deltas come in as separate rows of the union's sum already; an edge day is only
  // ever read from the payments, so the two never overlap.
  const byKey = new Map<string, RevenueRow>();
  for (const row of [...(await days), ...(await edges)]) {
    const entry = byKey.get(keyOf(row));
    if (!entry) byKey.set(keyOf(row), { ...row });
    else {
      entry.payments = (BigInt(entry.payments) + BigInt(row.payments)).toString();
      entry.revenue = (BigInt(entry.revenue) + BigInt(row.revenue)).toString();
    }
  }
  return [...byKey.values()].filter((row) => BigInt(row.payments) !== 0n);
}

/** Revenue per day for the dashboard's chart, by currency and split by token and network. */
export function registerDailyRevenue(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payments/revenue',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['payments'],
        summary: 'Revenue per day, by currency, token and network',
        description:
          "Succeeded payments of the partner's merchants (or of merchantId) and their fiat revenue per UTC day of creation, currency, token and network, over the list's filters startTs, endTs, token_symbol and network. Each currency's revenue over the days is the list's stats.totalRevenue for the same filters and status=succeeded. Ordered by day, currency, token, network.",
        querystring: RevenueQuery,
        response: { 200: RevenueDays, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const { merchantId, ...query } = request.query;
      const scope = await partnerListScope(ctx, partnerId, merchantId);
      const filters = filtersOf(
        { ...query, sortBy: 'date', sortDir: 'desc', limit: 1 },
        scope,
        ctx.clock.now(),
        request.apiVersion ?? '',
      );
      const rows = await revenueByDay(ctx, filters);
      rows.sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
      return { data: rows.map((row) => ({ ...row, payments: Number(row.payments) })) };
    },
  );
}
