import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { versionHas } from '../http/versions.ts';
import { filtersOf, ListPaymentsQuery, type ListStatus, partnerListScope, MerchantIdFilter } from './listFilters.ts';
import { totalsOf } from './listStatistics.ts';

const { startTs, endTs, token_symbol, network, referenceId, search, source, paymentLinkId } =
  ListPaymentsQuery.properties;

const StatusCountsQuery = Type.Object(
  {
    startTs,
    endTs,
    token_symbol,
    network,
    referenceId,
    search,
    source,
    paymentLinkId,
    merchantId: MerchantIdFilter,
  },
  { additionalProperties: false },
);

const StatusCounts = Type.Object({
  data: Type.Array(
    Type.Object({
      status: Type.String({ description: 'A status the list filters by' }),
      payments: Type.Integer({ description: "The list's stats.totalTransactions for this status and the filters" }),
    }),
  ),
});

const STATUSES: ListStatus[] = ['requires_action', 'processing', 'succeeded', 'failed', 'expired'];

/**
 * How many payments the list holds in each status for the same filters, in one request: each count is the list's
 * `stats.totalTransactions` with that status, read from the same daily totals.
 */
export function registerCountPaymentsByStatus(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payments/status-counts',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['payments'],
        summary: 'Count payments by status',
        description:
          "The payments of the partner's merchants (or of merchantId) in each list status, over the list's filters other than status; each count is GET /v1/payments' stats.totalTransactions for that status. `cancelled` (counted within `failed` too) from 2026-02-19.preview.",
        querystring: StatusCountsQuery,
        response: { 200: StatusCounts, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { merchantId, ...query } = request.query;
      const scope = await partnerListScope(ctx, principalOf(request).partnerId, merchantId);
      const version = request.apiVersion ?? '';
      const filters = filtersOf(
        { ...query, sortBy: 'date', sortDir: 'desc', limit: 1 },
        scope,
        ctx.clock.now(),
        version,
      );
      const statuses = versionHas(version, 'payment-list-cancelled-status')
        ? [...STATUSES, 'cancelled' as const]
        : STATUSES;
      // One status at a time: each count already reads in parallel, and a request takes no more than those few
      // connections of the pool.
      const totals: Awaited<ReturnType<typeof totalsOf>>[] = [];
      for (const status of statuses) totals.push(await totalsOf(ctx, { ...filters, statuses: [status] }));
      return {
        data: statuses.map((status, index) => ({
          status,
          payments: Number([...totals[index]!.values()].reduce((sum, total) => sum + total.payments, 0n)),
        })),
      };
    },
  );
}
