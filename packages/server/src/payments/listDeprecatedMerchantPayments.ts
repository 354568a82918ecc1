import { type Static, Type } from '@sinclair/typebox';
import type { ChainRegistry } from '../chains/registry.ts';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import { filtersOf, type ListQuery, ListPaymentsQuery } from './listFilters.ts';
import type { ListStats } from './listStatistics.ts';
import { markDeprecated, paymentListPage } from './paymentListPage.ts';
import { type MerchantRow, type PaymentRow, toPaymentItem } from './paymentResource.ts';

const current = ListPaymentsQuery.properties;

/** The older list's snake_case query; each parameter is its counterpart of the current list. */
const DeprecatedListQuery = Type.Object(
  {
    start_ts: current.startTs,
    end_ts: current.endTs,
    asset: Type.Optional(Type.String({ maxLength: 16, description: 'Token symbol, e.g. USDC; empty is absent' })),
    network: current.network,
    sort_by: current.sortBy,
    sort_dir: current.sortDir,
    cursor: current.cursor,
    limit: current.limit,
    status: current.status,
  },
  { additionalProperties: false },
);

const DeprecatedListParams = Type.Object({ merchant_id: Type.String({ maxLength: 64 }) });

const NullableString = Nullable(Type.String());
const NullableInteger = Nullable(Type.Integer());

/** A payment as the older path answers it: snake_case and flat, as WalletConnect Pay documents that path. */
const LegacyPayment = Type.Object({
  payment_id: Type.String(),
  merchant_id: Type.String(),
  reference_id: Type.String(),
  status: Type.String({
    description: 'requires_action, processing, succeeded, failed or expired (a cancelled one is failed)',
  }),
  is_terminal: Type.Boolean(),
  wallet_name: Type.String({ description: 'The wallet app the buyer paid with; empty when unknown or unpaid' }),
  wallet_logo: NullableString,
  chain_id: Nullable(Type.String({ description: 'CAIP-2' })),
  buyer_caip10: NullableString,
  token_caip19: NullableString,
  token_symbol: NullableString,
  token_decimals: NullableInteger,
  token_logo: NullableString,
  chain_logo: NullableString,
  token_amount: Nullable(Type.String({ description: 'Minor units of the token' })),
  fiat_amount: Nullable(Type.Integer({ description: 'Minor units of fiat_currency; null past 2,147,483,647' })),
  fiat_currency: NullableString,
  tx_hash: NullableString,
  nonce: NullableInteger,
  created_at: NullableString,
  last_updated_at: NullableString,
  settled_at: NullableString,
  settlement_status: Nullable(Type.String({ description: 'succeeded payments only: settled or pending' })),
  settlement_tx_hash: NullableString,
});

const LegacyPaymentList = Type.Object({
  data: Type.Array(LegacyPayment),
  next_cursor: NullableString,
  stats: Type.Object({
    total_customers: Type.Integer(),
    total_transactions: Type.Integer(),
    total_revenue: Type.Object(
      { amount: Type.Number({ description: 'Standard units, e.g. 12.34' }), currency: Type.String() },
      {
        description:
          'One currency: the only one, or the first in code order when the payments are in several (GET /v1/merchants/payments gives each); 0 USD when nothing succeeded',
      },
    ),
  }),
});

/** The largest integer the older shape's `fiat_amount` and `nonce` hold. */
const INT32_MAX = 2_147_483_647;

function int32OrNull(value: string | null): number | null {
  return value !== null && BigInt(value) <= BigInt(INT32_MAX) ? Number(value) : null;
}

function toLegacyPayment(row: PaymentRow, merchant: MerchantRow, chains: ChainRegistry, baseUrl: string, now: Date) {
  const item = toPaymentItem(row, merchant, chains, baseUrl, now);
  const token = row.token_asset ? chains.token(row.token_asset) : undefined;
  const network = row.network ? chains.network(row.network) : undefined;
  return {
    payment_id: item.paymentId,
    merchant_id: merchant.id,
    reference_id: item.referenceId,
    status: item.status,
    is_terminal: item.isTerminal,
    wallet_name: item.buyer?.accountProviderName ?? '',
    wallet_logo: item.buyer?.accountProviderIcon ?? null,
    chain_id: row.network,
    buyer_caip10: row.buyer_account,
    token_caip19: row.token_asset,
    token_symbol: row.token_symbol,
    token_decimals: token?.decimals ?? null,
    token_logo: token?.iconUrl ?? null,
    chain_logo: network?.iconUrl ?? null,
    token_amount: row.token_value,
    fiat_amount: int32OrNull(row.fiat_value),
    fiat_currency: row.fiat_currency,
    tx_hash: row.tx_hash,
    nonce: int32OrNull(row.tx_nonce === null ? null : String(row.tx_nonce)),
    created_at: item.createdAt,
    last_updated_at: item.lastUpdatedAt,
    settled_at: item.settledAt ?? null,
    settlement_status: item.settlement ? (item.settlement.settled ? 'settled' : 'pending') : null,
    settlement_tx_hash: item.settlement?.txHash ?? null,
  };
}

function toLegacyStats(stats: ListStats) {
  const [revenue] = [...stats.totalRevenue].sort((a, b) => (a.currency < b.currency ? -1 : 1));
  return {
    total_customers: stats.totalCustomers,
    total_transactions: stats.totalTransactions,
    total_revenue: revenue ?? { amount: 0, currency: 'USD' },
  };
}

/** The current list's query for the older one's: `asset` is this path's one token filter, so it maps to token_symbol. */
function currentQueryOf(query: Static<typeof DeprecatedListQuery>): ListQuery {
  return {
    sortBy: query.sort_by,
    sortDir: query.sort_dir,
    limit: query.limit,
    ...(query.start_ts ? { startTs: query.start_ts } : {}),
    ...(query.end_ts ? { endTs: query.end_ts } : {}),
    ...(query.asset ? { token_symbol: [query.asset] } : {}),
    ...(query.network ? { network: query.network } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
    ...(query.status ? { status: query.status } : {}),
  };
}

export function registerListDeprecatedMerchantPayments(app: App, ctx: AppContext): void {
  app.get(
    '/v1/merchants/:merchant_id/payments',
    {
      config: { auth: { scope: 'payments', legacyKeyHeader: true } },
      // Before validation, so a refused request also learns that the path is deprecated.
      onRequest: async (_request, reply) => markDeprecated(reply),
      schema: {
        tags: ['payments'],
        deprecated: true,
        summary: "List a merchant's payments (older path; use GET /v1/merchants/payments)",
        description:
          'The current list under its older path, snake_case query and answer, as WalletConnect Pay documents that path, with a Deprecation header; the merchant is in the path, not in Merchant-Id, and the older X-Api-Key header is taken for Api-Key.',
        params: DeprecatedListParams,
        querystring: DeprecatedListQuery,
        response: { 200: LegacyPaymentList, ...errorResponses(404, 502) },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      // A deleted merchant's payments stay readable, as on the current list.
      const merchant = await merchantOfPartner(ctx.merchants, partnerId, request.params.merchant_id, {
        includeDeleted: true,
      });
      const now = ctx.clock.now();
      const query = currentQueryOf(request.query);
      const filters = filtersOf(query, { merchantIds: [merchant.id] }, now, request.apiVersion ?? '');
      const page = await paymentListPage(ctx, filters, query);
      return {
        data: page.rows.map((row) => toLegacyPayment(row, merchant, ctx.chains, ctx.config.baseUrl, now)),
        next_cursor: page.nextCursor,
        stats: toLegacyStats(page.stats),
      };
    },
  );
}
