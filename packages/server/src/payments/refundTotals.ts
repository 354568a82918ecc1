import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** What the refunds of a payment's amount come to, in minor units of its currency: returned, and on their way. */
export interface RefundTotals {
  refunded: bigint;
  pending: bigint;
}

/**
 * The refund totals of those of `paymentIds` that have refunds, by payment id. Refunds of an exception return a
 * token amount, not the payment's: they count in neither total.
 */
export async function refundTotalsOf(db: Db, paymentIds: string[]): Promise<Map<string, RefundTotals>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('refunds')
    .where('payment_id', 'in', paymentIds)
    .groupBy('payment_id')
    .select([
      'payment_id',
      sql<string>`coalesce(sum(fiat_value) FILTER (WHERE status = 'succeeded' AND exception_id IS NULL), 0)::text`.as(
        'refunded',
      ),
      sql<string>`coalesce(sum(fiat_value) FILTER (WHERE status = 'pending' AND exception_id IS NULL), 0)::text`.as(
        'pending',
      ),
    ])
    .execute();
  return new Map(rows.map((row) => [row.payment_id, { refunded: BigInt(row.refunded), pending: BigInt(row.pending) }]));
}

/** The totals of one payment's refund rows, counted as `refundTotalsOf` counts them; undefined when it has none. */
export function refundTotalsOfRows(
  rows: { status: string; fiat_value: string; exception_id: string | null }[],
): RefundTotals | undefined {
  if (rows.length === 0) return undefined;
  const sum = (status: string) =>
    rows
      .filter((row) => row.status === status && row.exception_id === null)
      .reduce((total, row) => total + BigInt(row.fiat_value), 0n);
  return { refunded: sum('succeeded'), pending: sum('pending') };
}

/** A payment's refund totals as the API shows them beside it, once it has refunds. */
export function refundAmountsOf(currency: string, totals: RefundTotals | undefined) {
  if (!totals) return {};
  return {
    refundedAmount: { unit: `iso4217/${currency}`, value: totals.refunded.toString() },
    pendingRefundAmount: { unit: `iso4217/${currency}`, value: totals.pending.toString() },
  };
}
