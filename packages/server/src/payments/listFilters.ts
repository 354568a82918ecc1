import { type Static, Type } from '@sinclair/typebox';
import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../context.ts';
import { type Database, PAYMENT_SOURCES, type PaymentSource } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { versionHas } from '../http/versions.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';

/** The list's status filter; `cancelled` only where the version has `payment-list-cancelled-status`. */
const LIST_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];

/** One enum rather than a union of constants, so a wrong value is told the accepted ones. */
const ListStatusValue = Type.Unsafe<ListStatus>({
  type: 'string',
  enum: [...LIST_STATUSES],
  description: '`cancelled` from 2026-02-19.preview: only the cancelled payments, which `failed` includes too',
});

/** The payment list's query; its filters apply alike to the page and to the statistics. */
export const ListPaymentsQuery = Type.Object(
  {
    startTs: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339, inclusive' })),
    endTs: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339, exclusive' })),
    token_symbol: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 16 }), { maxItems: 20, description: 'Repeat for several' }),
    ),
    asset: Type.Optional(
      Type.String({ maxLength: 16, deprecated: true, description: 'Deprecated: use token_symbol; empty is absent' }),
    ),
    network: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'CAIP-2 chain ids, comma-separated' }),
    ),
    sortBy: Type.Union([Type.Literal('date'), Type.Literal('amount')], { default: 'date' }),
    sortDir: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
    cursor: Type.Optional(
      Type.String({ maxLength: 4096, description: 'nextCursor of the previous page; empty is absent' }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    status: Type.Optional(Type.Array(ListStatusValue, { maxItems: 6 })),
    referenceId: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 35,
        pattern: '^[A-Za-z0-9 /:.,+-]+$',
        description: 'Case-insensitive substring',
      }),
    ),
    search: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 128,
        pattern: '^[A-Za-z0-9 _/:.,+-]+$',
        description:
          'paygate extension: the payment with this id, transaction hash (EVM case-insensitive) or buyer account (CAIP-10, or its address alone), or whose reference contains it (case-insensitive)',
      }),
    ),
    source: Type.Optional(
      Type.Unsafe<PaymentSource>({
        type: 'string',
        enum: [...PAYMENT_SOURCES],
        description:
          'Only the payments created through the API (`api`), settled by the x402 facilitator (`x402`), made by a payment link (`payment_link`) or charged on a point of sale (`point_of_sale`)',
      }),
    ),
    paymentLinkId: Type.Optional(
      Type.String({ maxLength: 64, description: 'paygate extension: only the payments the payment link made' }),
    ),
  },
  { additionalProperties: false },
);

export type ListQuery = Static<typeof ListPaymentsQuery>;

/**
 * Unpaid payments read as unpaid at `now` (`effectiveStatus`): before their expiry, or after it while one whose
 * expiry waits for a follower (a deposit address, a Solana Pay request) waits for the expiry sweep.
 */
export function readAsUnpaid(eb: ExpressionBuilder<Database, 'payments'>, now: Date) {
  return eb.and([
    eb('payments.status', '=', 'requires_action'),
    eb.or([eb('payments.expires_at', '>', now), eb('payments.expiry_awaits_follower', '=', true)]),
  ]);
}

/**
 * The payments the list shows under `status` at `now` (D9): unpaid past expiry is expired, cancelled is failed;
 * the `cancelled` filter narrows to the cancelled ones, still shown as failed.
 * Written as plain column conditions, not one CASE expression, so the planner can use the status index.
 */
function listedStatusCondition(eb: ExpressionBuilder<Database, 'payments'>, status: ListStatus, now: Date) {
  switch (status) {
    case 'requires_action':
      return readAsUnpaid(eb, now);
    case 'expired':
      return eb.or([
        eb('payments.status', '=', 'expired'),
        eb.and([
          eb('payments.status', '=', 'requires_action'),
          eb('payments.expires_at', '<=', now),
          eb('payments.expiry_awaits_follower', '=', false),
        ]),
      ]);
    case 'failed':
      return eb('payments.status', 'in', ['failed', 'cancelled']);
    default:
      return eb('payments.status', '=', status);
  }
}

/** Whose payments a list covers: one merchant's, or those of every merchant of a partner (deleted ones included). */
export type ListScope = { merchantIds: string[] } | { partnerId: string };

/** The partner lists' `merchantId` query parameter, which `partnerListScope` resolves. */
export const MerchantIdFilter = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    maxItems: 50,
    description: "Only these merchants' payments: one, or several as a repeated parameter; another partner's is 404",
  }),
);

/**
 * The payments a partner's list covers: every merchant's, or those `merchantId` names (deleted ones included, for
 * their payments stay readable); another partner's or an unknown merchant is 404 `merchant_not_found`.
 */
export async function partnerListScope(ctx: AppContext, partnerId: string, merchantIds?: string[]): Promise<ListScope> {
  if (!merchantIds?.length) return { partnerId };
  const named = [...new Set(merchantIds)];
  for (const merchantId of named)
    await merchantOfPartner(ctx.merchants, partnerId, merchantId, { includeDeleted: true });
  return { merchantIds: named };
}

export interface Filters {
  scope: ListScope;
  start?: Date;
  end?: Date;
  symbols?: string[];
  networks?: string[];
  statuses?: ListStatus[];
  referenceId?: string;
  search?: string;
  source?: PaymentSource;
  paymentLinkId?: string;
  now: Date;
}

export function filtersOf(query: ListQuery, scope: ListScope, now: Date, version: string): Filters {
  if (query.asset && versionHas(version, 'asset-query-parameter-removed')) {
    throw ApiError.validation([{ field: 'asset', message: `is removed in API version ${version}; use token_symbol` }]);
  }
  if (query.status?.includes('cancelled') && !versionHas(version, 'payment-list-cancelled-status')) {
    throw ApiError.validation([
      {
        field: 'status',
        message: `cancelled is not a list status in API version ${version}: a cancelled payment is listed as failed and status=failed includes it (status=cancelled exists from 2026-02-19.preview)`,
      },
    ]);
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
    scope,
    now,
    ...(start ? { start } : {}),
    ...(end ? { end } : {}),
    ...(symbols.length ? { symbols } : {}),
    ...(networks ? { networks } : {}),
    ...(query.status?.length ? { statuses: [...new Set(query.status)] } : {}),
    ...(query.referenceId ? { referenceId: query.referenceId } : {}),
    ...(query.search?.trim() ? { search: query.search.trim() } : {}),
    ...(query.source ? { source: query.source } : {}),
    ...(query.paymentLinkId ? { paymentLinkId: query.paymentLinkId } : {}),
  };
}

/**
 * What a search matches: the payment's id, its transaction (an EVM hash in any case, a Solana signature exactly),
 * its buyer's account (CAIP-10, or the address alone on any network), or a part of its reference.
 */
function searchCondition(eb: ExpressionBuilder<Database, 'payments'>, search: string) {
  const lower = search.toLowerCase();
  // `_` is a wildcard of LIKE; the query's pattern lets no other one through.
  const contained = `%${search.replaceAll('_', '\\_')}%`;
  return eb.or([
    eb('payments.id', '=', search),
    eb('payments.tx_hash', '=', search),
    eb(eb.fn('lower', ['payments.tx_hash']), '=', lower),
    eb('payments.buyer_account', '=', search),
    eb(eb.fn('lower', ['payments.buyer_account']), 'like', `%:${lower.replaceAll('_', '\\_')}`),
    eb('payments.reference_id', 'ilike', contained),
  ]);
}

export function applyFilters<O>(query: SelectQueryBuilder<Database, 'payments', O>, filters: Filters) {
  return query.where((eb: ExpressionBuilder<Database, 'payments'>) => {
    const conditions = [
      'merchantIds' in filters.scope
        ? eb('payments.merchant_id', 'in', filters.scope.merchantIds)
        : eb('payments.partner_id', '=', filters.scope.partnerId),
    ];
    if (filters.start) conditions.push(eb('payments.created_at', '>=', filters.start));
    if (filters.end) conditions.push(eb('payments.created_at', '<', filters.end));
    if (filters.symbols) conditions.push(eb(eb.fn('upper', ['payments.token_symbol']), 'in', filters.symbols));
    if (filters.networks) conditions.push(eb('payments.network', 'in', filters.networks));
    if (filters.statuses)
      conditions.push(eb.or(filters.statuses.map((status) => listedStatusCondition(eb, status, filters.now))));
    if (filters.referenceId) conditions.push(eb('payments.reference_id', 'ilike', `%${filters.referenceId}%`));
    if (filters.search) conditions.push(searchCondition(eb, filters.search));
    if (filters.source) conditions.push(eb(eb.fn.coalesce('payments.origin', 'payments.source'), '=', filters.source));
    if (filters.paymentLinkId) conditions.push(eb('payments.payment_link_id', '=', filters.paymentLinkId));
    return eb.and(conditions);
  });
}
