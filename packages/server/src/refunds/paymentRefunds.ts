import { Type } from '@sinclair/typebox';
import type { Db } from '../db/database.ts';
import { Refund, type RefundView, toRefundView } from './refundResource.ts';

/** What a payment's page shows of its refunds, once it has any. */
export const PaymentRefundFields = {
  refunds: Type.Optional(Type.Array(Refund, { description: 'Every refund of the payment, oldest first' })),
  refundedAmount: Type.Optional(
    Type.Object(
      { unit: Type.String(), value: Type.String({ description: 'Minor units' }) },
      { description: 'What succeeded refunds returned, in the payment currency' },
    ),
  ),
};

export async function refundsOfPayment(
  db: Db,
  payment: { id: string; fiat_currency: string },
): Promise<{ refunds?: RefundView[]; refundedAmount?: { unit: string; value: string } }> {
  const rows = await db.selectFrom('refunds').selectAll().where('payment_id', '=', payment.id).orderBy('id').execute();
  if (rows.length === 0) return {};
  const refunded = rows
    .filter((row) => row.status === 'succeeded' && row.exception_id === null)
    .reduce((sum, row) => sum + BigInt(row.fiat_value), 0n);
  return {
    refunds: rows.map(toRefundView),
    refundedAmount: { unit: `iso4217/${payment.fiat_currency}`, value: refunded.toString() },
  };
}
