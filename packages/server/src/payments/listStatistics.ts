import { type Static, Type } from '@sinclair/typebox';
import { type SelectQueryBuilder, sql } from 'kysely';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { fiatCurrency, toStandardUnits } from './currencies.ts';
import { applyFilters, type Filters, type ListScope, readAsUnpaid } from './listFilters.ts';

const CurrencyTotal = Type.Object({
  amount: Type.Number({ description: 'Standard units, e.g. 12.34' }),
  currency: Type.String(),
});

export const Stats = Type.Object({
  totalRevenue: Type.Array(CurrencyTotal),
  totalRefunded: Type.Array(CurrencyTotal, {
    description: 'What succeeded refunds of the matching payments returned, per currency; each refund counted once',
  }),
  totalTransactions: Type.Integer(),
  totalCustomers: Type.Integer(),
});

export type ListStats = Static<typeof Stats>;

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
  cancelled: ['cancelled'],
};

/**
 * The merchants whose rows of the statistics tables (keyed by merchant) a scope covers: a partner's are all its
 * merchants, deleted ones included, each read through its own key range.
 */
function merchantsOf(ctx: AppContext, scope: ListScope) {
  return 'merchantIds' in scope
    ? scope.merchantIds
    : ctx.db.selectFrom('merchants').select('merchants.id').where('merchants.partner_id', '=', scope.partnerId);
}

const DAILY_TOTAL_COLUMNS = [
  'merchant_id',
  'day',
  'status',
  'fiat_currency',
  'token_symbol',
  'network',
  'payments',
  'fiat_total',
] as const;

/**
 * The daily totals of the scope's merchants, folded and not yet folded alike (`stats`): a day's rows add up to its
 * payments and fiat total per status, currency, token and network.
 */
export function dailyTotals(ctx: AppContext, scope: ListScope) {
  const merchants = merchantsOf(ctx, scope);
  return ctx.db.selectFrom((eb) =>
    eb
      .selectFrom('payment_daily_stats')
      .select(DAILY_TOTAL_COLUMNS)
      .where('merchant_id', 'in', merchants)
      .unionAll(eb.selectFrom('payment_stats_deltas').select(DAILY_TOTAL_COLUMNS).where('merchant_id', 'in', merchants))
      .as('stats'),
  );
}

const DAY_MS = 24 * 60 * 60 * 1000;
const utcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
export const isoDay = (day: Date) => day.toISOString().slice(0, 10);

/**
 * The whole UTC days within the filtered range: from the first day starting at or after `start`, up to the day of
 * `end` (exclusive); the hours before and after them are read from the payments themselves.
 */
export function wholeDaysOf(filters: Filters): { from: Date | undefined; to: Date | undefined } {
  const from =
    filters.start &&
    (utcDay(filters.start).getTime() === filters.start.getTime()
      ? filters.start
      : new Date(utcDay(filters.start).getTime() + DAY_MS));
  return { from, to: filters.end && utcDay(filters.end) };
}

/**
 * Payments and revenue over the filtered set: whole UTC days from the daily totals (folded and not yet folded
 * deltas), the partial first and last day from the payments themselves. The daily totals count every unpaid payment
 * as expired; the few still payable at `now` are then moved back, found by the partial index on unpaid payments. The
 * daily totals know neither a payment's reference, id, transaction, buyer, source nor link: filtered by any
 * (`referenceId`, `search`, `source`, `paymentLinkId`), the payments answer alone.
 */
export async function totalsOf(ctx: AppContext, filters: Filters): Promise<CurrencyTotals> {
  const totals: CurrencyTotals = new Map();
  const payments = () => applyFilters(ctx.db.selectFrom('payments').select('payments.id'), filters);
  const { from: daysFrom, to: daysTo } = wholeDaysOf(filters);
  const narrowedBeyondDays = filters.referenceId || filters.search || filters.source || filters.paymentLinkId;
  if (narrowedBeyondDays || (daysFrom && daysTo && daysFrom >= daysTo)) {
    addTotals(totals, await totalsFromPayments(payments()));
    return totals;
  }

  const storedStatuses = filters.statuses && [
    ...new Set(filters.statuses.flatMap((status) => STORED_STATUSES_OF[status] ?? [])),
  ];
  let days = dailyTotals(ctx, filters.scope)
    .select([
      'fiat_currency',
      sql<string>`sum(payments)`.as('payments'),
      sql<string>`coalesce(sum(fiat_total) FILTER (WHERE status = 'succeeded'), 0)`.as('revenue'),
    ])
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
        .where((eb) => readAsUnpaid(eb, filters.now))
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
  cancelled: ['cancelled'],
};

/**
 * Distinct buyer accounts over the filtered set. Unfiltered, the kept per-merchant buyer table answers alone;
 * narrowed only by token, network and settled statuses, the per-group buyer table does; otherwise the payments.
 */
async function customersOf(ctx: AppContext, filters: Filters): Promise<number> {
  const { scope, symbols, networks, statuses, now: _now, ...narrowing } = filters;
  const countRows = (query: SelectQueryBuilder<Database, never, object>) =>
    ctx.db.selectFrom(query.as('buyers')).select(sql<string>`count(*)`.as('customers')).executeTakeFirstOrThrow();
  if (!symbols && !networks && !statuses && Object.keys(narrowing).length === 0) {
    const buyers = ctx.db
      .selectFrom('merchant_buyers')
      .select('buyer_account')
      .where('merchant_id', 'in', merchantsOf(ctx, scope));
    // One merchant's rows are distinct accounts already; a buyer of several merchants is one customer of the partner.
    const oneMerchant = 'merchantIds' in scope && scope.merchantIds.length === 1;
    return Number((await countRows(oneMerchant ? buyers : buyers.distinct())).customers);
  }
  const groupStatuses = statuses?.map((status) => BUYER_GROUP_STATUSES[status]);
  if (Object.keys(narrowing).length === 0 && !groupStatuses?.includes(undefined)) {
    let groups = ctx.db
      .selectFrom('payment_buyers')
      .select('buyer_account')
      .distinct()
      .where('merchant_id', 'in', merchantsOf(ctx, scope));
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

/**
 * Succeeded refunds of the matching payments, per currency. Refunds are few beside payments: they are read by the
 * scope's refund index and each one's payment checked against the filters by its key.
 */
async function refundedOf(ctx: AppContext, filters: Filters): Promise<Map<string, bigint>> {
  const matching = applyFilters(
    ctx.db.selectFrom('payments').select(['payments.id', 'payments.fiat_currency']),
    filters,
  );
  const scoped =
    'merchantIds' in filters.scope
      ? ctx.db.selectFrom('refunds').where('refunds.merchant_id', 'in', filters.scope.merchantIds)
      : ctx.db.selectFrom('refunds').where('refunds.partner_id', '=', filters.scope.partnerId);
  const rows = await scoped
    .innerJoin(matching.as('payment'), 'payment.id', 'refunds.payment_id')
    .where('refunds.status', '=', 'succeeded')
    .where('refunds.exception_id', 'is', null)
    .select(['payment.fiat_currency', sql<string>`sum(refunds.fiat_value)::text`.as('refunded')])
    .groupBy('payment.fiat_currency')
    .execute();
  return new Map(rows.map((row) => [row.fiat_currency, BigInt(row.refunded)]));
}

function inStandardUnits(totals: Map<string, bigint>) {
  return [...totals.keys()]
    .sort()
    .filter((currency) => totals.get(currency)! > 0n)
    .map((currency) => ({
      amount: toStandardUnits(totals.get(currency)!, fiatCurrency(currency)?.decimals ?? 2),
      currency,
    }));
}

/** Statistics over every payment matching the filters, not just one page. */
export async function listStats(ctx: AppContext, filters: Filters): Promise<ListStats> {
  const [totals, customers, refunded] = await Promise.all([
    totalsOf(ctx, filters),
    customersOf(ctx, filters),
    refundedOf(ctx, filters),
  ]);
  const currencies = [...totals.keys()].sort();
  return {
    totalRevenue: inStandardUnits(new Map(currencies.map((currency) => [currency, totals.get(currency)!.revenue]))),
    totalRefunded: inStandardUnits(refunded),
    totalTransactions: Number(currencies.reduce((sum, currency) => sum + totals.get(currency)!.payments, 0n)),
    totalCustomers: customers,
  };
}
