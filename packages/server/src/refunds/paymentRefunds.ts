import { Type } from '@sinclair/typebox';
import type { Db } from '../db/database.ts';
import { type RefundTotals, refundTotalsOfRows } from '../payments/refundTotals.ts';
import { Refund, type RefundView, toRefundView } from './refundResource.ts';

/** What a payment's page shows of its refunds, once it has any (their totals are the list item's). */
export const PaymentRefundFields = {
  refunds: Type.Optional(Type.Array(Refund, { description: 'Every refund of the payment, oldest first' })),
};

/** A payment's refunds and their totals, from one read, so the two always agree. */
export async function refundsOfPayment(
  db: Db,
  payment: { id: string },
): Promise<{ refunds?: RefundView[]; totals?: RefundTotals }> {
  const rows = await db.selectFrom('refunds').selectAll().where('payment_id', '=', payment.id).orderBy('id').execute();
  return rows.length === 0 ? {} : { refunds: rows.map(toRefundView), totals: refundTotalsOfRows(rows) };
}
