import { type Static, Type } from '@sinclair/typebox';
import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { App, AppContext } from '../context.ts';
import type { Database } from '../db/schema.ts';
import type { CursorCodec } from '../http/cursor.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { versionHas } from '../http/versions.ts';
import { fiatCurrency, toStandardUnits } from './currencies.ts';
import { MerchantIdHeader, merchantOfRequest, requireMerchantIdHeader } from './merchantHeader.ts';
import { PaymentItem, toPaymentItem } from './paymentResource.ts';

const LIST_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'expired'] as const;

const ListPaymentsQuery = Type.Object(
  {
    startTs: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339, inclusive' })),
    endTs: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339, exclusive' })),
    token_symbol: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 16 }), { maxItems: 20, description: 'Repeat for several' }),
    ),
    asset: Type.Optional(
      Type.String({ minLength: 1, maxLength: 16, deprecated: true, description: 'Deprecated: use token_symbol' }),
    ),
    network: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'CAIP-2 chain ids, comma-separated' }),
    ),
    sortBy: Type.Union([Type.Literal('date'), Type.Literal('amount')], { default: 'date' }),
    sortDir: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
    cursor: Type.Optional(Type.String({ maxLength: 4096 })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    status: Type.Optional(Type.Array(Type.Union(LIST_STATUSES.map((status) => Type.Literal(status))), { maxItems: 5 })),
    referenceId: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 35,
        pattern: '^[A-Za-z0-9 /:.,+-]+$',
        description: 'Case-insensitive substring',
      }),
    ),
  },
  { additionalProperties: false },
);

type ListQuery = Static<typeof ListPaymentsQuery>;

const Stats = Type.Object({
  totalRevenue: Type.Array(
    Type.Object({ amount: Type.Number({ description: 'Standard units, e.g. 12.34' }), currency: Type.String() }),
  ),
  totalTransactions: Type.Integer(),
  totalCustomers: Type.Integer(),
});

/**
 * The payments the list shows under `status` at `now` (D9): unpaid past expiry is expired, cancelled is failed.
 * Written as plain column conditions, not one CASE expression, so the planner can use the status index.
 */
function listedStatusCondition(eb: ExpressionBuilder<Database, 'payments'>, status: string, now: Date) {
  switch (status) {
    case 'requires_action':
      return eb.and([eb('payments.status', '=', 'requires_action'), eb('payments.expires_at', '>', now)]);
    case 'expired':
      return eb.or([
        eb('payments.status', '=', 'expired'),
        eb.and([eb('payments.status', '=', 'requires_action'), eb('payments.expires_at', '<=', now)]),
      ]);
    case 'failed':
      return eb('payments.status', 'in', ['failed', 'cancelled']);
    default:
      return eb('payments.status', '=', status as 'processing' | 'succeeded');
  }
}

interface Filters {
  merchantId: string;
  start?: Date;
  end?: Date;
  symbols?: string[];
  networks?: string[];
  statuses?: string[];
  referenceId?: string;
  now: Date;
}

function filtersOf(query: ListQuery, merchantId: string, now: Date, version: string): Filters {
  if (query.asset !== undefined && versionHas(version, 'asset-query-parameter-removed')) {
    throw ApiError.validation([{ field: 'asset', message: `is removed in API version ${version}; use token_symbol` }]);
  }
  const symbols = [...(query.token_symbol ?? []), ...(query.asset ? [query.asset] : [])].map((symbol) =>
    symbol.toUpperCase(),
  );
  const networks = query.network?.split(',').map((network) => network.trim());
  if (networks?.some((network) => !/^(eip155|solana):[-_a-zA-Z0-9]{1,32}$/.test(network))) {
    throw ApiError.validation([
      { field: 'network', message: 'must be CAIP-2 chain ids, comma-separated (e.g. eip155:8453)' },
    ]);
  }
  const start = query.startTs ? new Date(query.startTs) : undefined;
  const end = query.endTs ? new Date(query.endTs) : undefined;
  if (start && end && start >= end) throw ApiError.validation([{ field: 'endTs', message: 'must be after startTs' }]);
  return {
    merchantId,
    now,
    ...(start ? { start } : {}),
    ...(end ? { end } : {}),
    ...(symbols.length ? { symbols } : {}),
    ...(networks ? { networks } : {}),
    ...(query.status?.length ? { statuses: [...new Set(query.status)] } : {}),
    ...(query.referenceId ? { referenceId: query.referenceId } : {}),
  };
}

function applyFilters<O>(query: SelectQueryBuilder<Database, 'payments', O>, filters: Filters) {
  return query.where((eb: ExpressionBuilder<Database, 'payments'>) => {
    const conditions = [eb('payments.merchant_id', '=', filters.merchantId)];
    if (filters.start) conditions.push(eb('payments.created_at', '>=', filters.start));
    if (filters.end) conditions.push(eb('payments.created_at', '<', filters.end));
    if (filters.symbols) conditions.push(eb(eb.fn('upper', ['payments.token_symbol']), 'in', filters.symbols));
    if (filters.networks) conditions.push(eb('payments.network', 'in', filters.networks));
    if (filters.statuses)
      conditions.push(eb.or(filters.statuses.map((status) => listedStatusCondition(eb, status, filters.now))));
    if (filters.referenceId) conditions.push(eb('payments.reference_id', 'ilike', `%${filters.referenceId}%`));
    return eb.and(conditions);
  });
}

type ListStats = Static<typeof Stats>;

/** Payments and succeeded fiat total per currency. */
type CurrencyTotals = Map<string, { payments: bigint; revenue: bigint }>;

function addTotals(
  into: CurrencyTotals,
  rows: { fiat_currency: string; payments: string; revenue: string }[],
  sign = 1n,
): void {
  for (const row of rows) {
    const entry = into.get(row.fiat_currency) ?? { payments: 0n, revenue: 0n };
    entry.payments += sign * BigInt(row.payments);
    entry.revenue += sign * BigInt(row.revenue);
    into.set(row.fiat_currency, entry);
  }
}

function totalsFromPayments<O>(query: SelectQueryBuilder<Database, 'payments', O>) {
  return query
    .clearSelect()
    .select([
      'payments.fiat_currency',
      sql<string>`count(*)`.as('payments'),
      sql<string>`coalesce(sum(payments.fiat_value) FILTER (WHERE payments.status = 'succeeded'), 0)`.as('revenue'),
    ])
    .groupBy('payments.fiat_currency')
    .execute();
}

/** The stored statuses a listed status covers in the daily totals, where unpaid counts as expired until corrected. */
const STORED_STATUSES_OF: Record<string, string[]> = {
  requires_action: [],
  processing: ['processing'],
  succeeded: ['succeeded'],
  failed: ['failed', 'cancelled'],
  expired: ['expired', 'requires_action'],
};

const DAY_MS = 24 * 60 * 60 * 1000;
const utcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
const isoDay = (day: Date) => day.toISOString().slice(0, 10);

/**
 * Payments and revenue over the filtered set: whole UTC days from the daily totals (folded and not yet folded
 * deltas), the partial first and last day
 * from the payments themselves. The daily totals count every unpaid payment as expired; the few still payable at
 * `now` are then moved back, found by the partial index on unpaid payments.
 */
async function totalsOf(ctx: AppContext, filters: Filters): Promise<CurrencyTotals> {
  const totals: CurrencyTotals = new Map();
  const payments = () => applyFilters(ctx.db.selectFrom('payments').select('payments.id'), filters);
  const daysFrom =
    filters.start &&
    (utcDay(filters.start).getTime() === filters.start.getTime()
      ? filters.start
      : new Date(utcDay(filters.start).getTime() + DAY_MS));
  const daysTo = filters.end && utcDay(filters.end);
  if (filters.referenceId || (daysFrom && daysTo && daysFrom >= daysTo)) {
    addTotals(totals, await totalsFromPayments(payments()));
    return totals;
  }

  const storedStatuses = filters.statuses && [
    ...new Set(filters.statuses.flatMap((status) => STORED_STATUSES_OF[status] ?? [])),
  ];
  const statsColumns = [
    'merchant_id',
    'day',
    'status',
    'fiat_currency',
    'token_symbol',
    'network',
    'payments',
    'fiat_total',
  ] as const;
  let days = ctx.db
    .selectFrom((eb) =>
      eb
        .selectFrom('payment_daily_stats')
        .select(statsColumns)
        .unionAll(eb.selectFrom('payment_stats_deltas').select(statsColumns))
        .as('stats'),
    )
    .select([
      'fiat_currency',
      sql<string>`sum(payments)`.as('payments'),
      sql<string>`coalesce(sum(fiat_total) FILTER (WHERE status = 'succeeded'), 0)`.as('revenue'),
    ])
    .where('merchant_id', '=', filters.merchantId)
    .groupBy('fiat_currency');
  if (daysFrom) days = days.where('day', '>=', sql<Date>`${isoDay(daysFrom)}::date`);
  if (daysTo) days = days.where('day', '<', sql<Date>`${isoDay(daysTo)}::date`);
  if (filters.symbols) days = days.where('token_symbol', 'in', filters.symbols);
  if (filters.networks) days = days.where('network', 'in', filters.networks);
  if (storedStatuses?.length) days = days.where('status', 'in', storedStatuses);

  const edges =
    (daysFrom || daysTo) &&
    totalsFromPayments(
      payments().where((eb) =>
        eb.or([
          ...(daysFrom ? [eb('payments.created_at', '<', daysFrom)] : []),
          ...(daysTo ? [eb('payments.created_at', '>=', daysTo)] : []),
        ]),
      ),
    );

  const wantsPayable = !filters.statuses || filters.statuses.includes('requires_action');
  const wantsExpired = !filters.statuses || filters.statuses.includes('expired');
  const { statuses: _statuses, ...withoutStatus } = filters;
  const payableInDays =
    wantsPayable !== wantsExpired &&
    totalsFromPayments(
      applyFilters(ctx.db.selectFrom('payments').select('payments.id'), withoutStatus)
        .where('payments.status', '=', 'requires_action')
        .where('payments.expires_at', '>', filters.now)
        .$if(daysFrom !== undefined, (query) => query.where('payments.created_at', '>=', daysFrom!))
        .$if(daysTo !== undefined, (query) => query.where('payments.created_at', '<', daysTo!)),
    );

  const [dayRows, edgeRows, payableRows] = await Promise.all([
    storedStatuses?.length === 0 ? [] : days.execute(),
    edges || [],
    payableInDays || [],
  ]);
  addTotals(totals, dayRows);
  addTotals(totals, edgeRows);
  addTotals(totals, payableRows, wantsPayable ? 1n : -1n);
  return totals;
}

/** The stored statuses of `payment_buyers` that make up a listed status; absent where the time of the request decides. */
const BUYER_GROUP_STATUSES: Record<string, string[] | undefined> = {
  processing: ['processing'],
  succeeded: ['succeeded'],
  failed: ['failed', 'cancelled'],
};

/**
 * Distinct buyer accounts over the filtered set. Unfiltered, the kept per-merchant buyer table answers alone;
 * narrowed only by token, network and settled statuses, the per-group buyer table does; otherwise the payments.
 */
async function customersOf(ctx: AppContext, filters: Filters): Promise<number> {
  const { merchantId, symbols, networks, statuses, now: _now, ...narrowing } = filters;
  const countRows = (query: SelectQueryBuilder<Database, never, object>) =>
    ctx.db.selectFrom(query.as('buyers')).select(sql<string>`count(*)`.as('customers')).executeTakeFirstOrThrow();
  if (!symbols && !networks && !statuses && Object.keys(narrowing).length === 0) {
    const { customers } = await ctx.db
      .selectFrom('merchant_buyers')
      .select(sql<string>`count(*)`.as('customers'))
      .where('merchant_id', '=', merchantId)
      .executeTakeFirstOrThrow();
    return Number(customers);
  }
  const groupStatuses = statuses?.map((status) => BUYER_GROUP_STATUSES[status]);
  if (Object.keys(narrowing).length === 0 && !groupStatuses?.includes(undefined)) {
    let groups = ctx.db
      .selectFrom('payment_buyers')
      .select('buyer_account')
      .distinct()
      .where('merchant_id', '=', merchantId);
    if (symbols) groups = groups.where('token_symbol', 'in', symbols);
    if (networks) groups = groups.where('network', 'in', networks);
    if (groupStatuses)
      groups = groups.where(
        'status',
        'in',
        groupStatuses.flatMap((stored) => stored ?? []),
      );
    return Number((await countRows(groups)).customers);
  }
  // A hashed DISTINCT in a subquery reads the covering indexes; count(DISTINCT ...) would sort every row.
  const buyers = applyFilters(ctx.db.selectFrom('payments').select('payments.buyer_account'), filters)
    .where('payments.buyer_account', 'is not', null)
    .distinct();
  return Number((await countRows(buyers)).customers);
}

/** Statistics over every payment matching the filters, not just one page. */
async function listStats(ctx: AppContext, filters: Filters): Promise<ListStats> {
  const [totals, customers] = await Promise.all([totalsOf(ctx, filters), customersOf(ctx, filters)]);
  const currencies = [...totals.keys()].sort();
  return {
    totalRevenue: currencies
      .filter((currency) => totals.get(currency)!.revenue > 0n)
      .map((currency) => ({
        amount: toStandardUnits(totals.get(currency)!.revenue, fiatCurrency(currency)?.decimals ?? 2),
        currency,
      })),
    totalTransactions: Number(currencies.reduce((sum, currency) => sum + totals.get(currency)!.payments, 0n)),
    totalCustomers: customers,
  };
}

export function registerListPayments(app: App, ctx: AppContext, cursors: CursorCodec): void {
  app.get(
    '/v1/merchants/payments',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payments'],
        summary: "List a merchant's payments with statistics",
        description:
          'Statistics cover every payment matching the filters, not just the page; later pages carry the statistics of the first page in their cursor, so paging costs no recount. Defaults: sortBy=date, sortDir=desc.',
        headers: MerchantIdHeader,
        querystring: ListPaymentsQuery,
        response: {
          200: Type.Object({ data: Type.Array(PaymentItem), nextCursor: Nullable(Type.String()), stats: Stats }),
          ...errorResponses(404, 502),
        },
      },
    },
    async (request, reply) => {
      const merchant = await merchantOfRequest(ctx, request);
      const now = ctx.clock.now();
      const { sortBy, sortDir, limit, cursor } = request.query;
      const filters = filtersOf(request.query, merchant.id, now, request.apiVersion ?? '');
      if (request.query.asset !== undefined) reply.header('deprecation', 'true');

      const { now: _now, ...stableFilters } = filters;
      const fingerprint = JSON.stringify([stableFilters, sortBy, sortDir]);
      const after = cursor === undefined ? undefined : cursors.decode<[string, string, ListStats]>(cursor, fingerprint);
      const sortColumn = sortBy === 'amount' ? sql`payments.fiat_value` : sql`payments.created_at`;
      const sortCast = sortBy === 'amount' ? sql`bigint` : sql`timestamptz`;
      const direction = sortDir === 'asc' ? sql`ASC` : sql`DESC`;

      let page = applyFilters(
        ctx.db.selectFrom('payments').selectAll('payments').select(sql<string>`${sortColumn}::text`.as('sort_key')),
        filters,
      );
      if (after) {
        const comparison = sortDir === 'asc' ? sql`>` : sql`<`;
        page = page.where(
          sql<boolean>`(${sortColumn}, payments.id) ${comparison} (${after[0]}::${sortCast}, ${after[1]})`,
        );
      }
      const rowsPromise = page
        .orderBy(sql`${sortColumn} ${direction}, payments.id ${direction}`)
        .limit(limit + 1)
        .execute();
      const [rows, stats] = await Promise.all([rowsPromise, after?.[2] ?? listStats(ctx, filters)]);

      const pageRows = rows.slice(0, limit);
      const last = pageRows[pageRows.length - 1];
      return {
        data: pageRows.map((row) => toPaymentItem(row, merchant, ctx.chains, ctx.config.baseUrl, now)),
        nextCursor: rows.length > limit && last ? cursors.encode([last.sort_key, last.id, stats], fingerprint) : null,
        stats,
      };
    },
  );
}
