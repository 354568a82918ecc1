import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { Nullable } from '../http/schemas.ts';
import { applyFilters, type Filters, type ListQuery } from './listFilters.ts';
import { type ListStats, listStats, Stats } from './listStatistics.ts';
import { PaymentItem, type PaymentRow } from './paymentResource.ts';

/** The answer of every payment list: one page, the next page's cursor and the statistics of the whole filtered set. */
export const PaymentList = Type.Object({
  data: Type.Array(PaymentItem),
  nextCursor: Nullable(Type.String()),
  stats: Stats,
});

export type ListOrder = Pick<ListQuery, 'sortBy' | 'sortDir' | 'limit' | 'cursor'>;

/** Marks an answer given through something deprecated: the `asset` parameter, the older list path. */
export function markDeprecated(reply: FastifyReply): void {
  reply.header('deprecation', 'true');
}

/**
 * One keyset page of the payments matching `filters`, and the statistics over all of them. Later pages carry the
 * statistics of the first page in their cursor, so paging costs no recount; an empty cursor is the first page.
 */
export async function paymentListPage(
  ctx: AppContext,
  filters: Filters,
  order: ListOrder,
): Promise<{ rows: PaymentRow[]; nextCursor: string | null; stats: ListStats }> {
  const { sortBy, sortDir, limit, cursor } = order;
  const { now: _now, ...stableFilters } = filters;
  const fingerprint = JSON.stringify([stableFilters, sortBy, sortDir]);
  const after = cursor ? ctx.cursors.decode<[string, string, ListStats]>(cursor, fingerprint) : undefined;
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
  const page = ctx.cursors.page(rows, limit, fingerprint, (row) => [row.sort_key, row.id, stats]);
  return { rows: page.rows, nextCursor: page.nextCursor, stats };
}
