import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App, AppContext } from '../context.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { applyFilters, filtersOf, ListPaymentsQuery } from './listFilters.ts';
import { type ListStats, listStats, Stats } from './listStatistics.ts';
import { MerchantIdHeader, merchantOfRequest, requireMerchantIdHeader } from './merchantHeader.ts';
import { PaymentItem, toPaymentItem } from './paymentResource.ts';

export function registerListPayments(app: App, ctx: AppContext): void {
  const cursors = ctx.cursors;
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

      let query = applyFilters(
        ctx.db.selectFrom('payments').selectAll('payments').select(sql<string>`${sortColumn}::text`.as('sort_key')),
        filters,
      );
      if (after) {
        const comparison = sortDir === 'asc' ? sql`>` : sql`<`;
        query = query.where(
          sql<boolean>`(${sortColumn}, payments.id) ${comparison} (${after[0]}::${sortCast}, ${after[1]})`,
        );
      }
      const rowsPromise = query
        .orderBy(sql`${sortColumn} ${direction}, payments.id ${direction}`)
        .limit(limit + 1)
        .execute();
      const [rows, stats] = await Promise.all([rowsPromise, after?.[2] ?? listStats(ctx, filters)]);

      const page = cursors.page(rows, limit, fingerprint, (row) => [row.sort_key, row.id, stats]);
      return {
        data: page.rows.map((row) => toPaymentItem(row, merchant, ctx.chains, ctx.config.baseUrl, now)),
        nextCursor: page.nextCursor,
        stats,
      };
    },
  );
}
