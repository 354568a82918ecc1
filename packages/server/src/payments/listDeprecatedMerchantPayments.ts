import { type Static, Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import { filtersOf, type ListQuery, ListPaymentsQuery } from './listFilters.ts';
import { markDeprecated, PaymentList, paymentListPage } from './paymentListPage.ts';
import { toPaymentItem } from './paymentResource.ts';

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
      config: { auth: { scope: 'payments' } },
      // Before validation, so a refused request also learns that the path is deprecated.
      onRequest: async (_request, reply) => markDeprecated(reply),
      schema: {
        tags: ['payments'],
        deprecated: true,
        summary: "List a merchant's payments (older path; use GET /v1/merchants/payments)",
        description:
          'The current list under its older path and snake_case query, answered with a Deprecation header; the merchant is in the path, not in Merchant-Id.',
        params: DeprecatedListParams,
        querystring: DeprecatedListQuery,
        response: { 200: PaymentList, ...errorResponses(404, 502) },
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
        data: page.rows.map((row) => toPaymentItem(row, merchant, ctx.chains, ctx.config.baseUrl, now)),
        nextCursor: page.nextCursor,
        stats: page.stats,
      };
    },
  );
}
