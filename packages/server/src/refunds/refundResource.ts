import { type Static, Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { RefundsTable } from '../db/schema.ts';

export type RefundRow = Selectable<RefundsTable>;

const FiatAmount = Type.Object({
  unit: Type.String({ description: '`iso4217/` and the payment currency, e.g. `iso4217/USD`' }),
  value: Type.String({ description: 'Minor units of the currency' }),
});

export const Refund = Type.Object(
  {
    id: Type.String({ description: 'Prefix `rfnd_`' }),
    paymentId: Type.String(),
    merchantId: Type.String(),
    method: Type.Union([Type.Literal('recorded'), Type.Literal('onchain')], {
      description:
        '`recorded`: the merchant returned the money elsewhere and this notes it; `onchain`: the service sends the paid token back to the paying account',
    }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    amount: FiatAmount,
    tokenAmount: Type.Optional(
      Type.Object({
        unit: Type.String({ description: '`caip19/` and the CAIP-19 id of the paid token' }),
        value: Type.String({ description: 'Minor units of the token' }),
      }),
    ),
    destination: Type.Optional(Type.String({ description: 'CAIP-10 account an on-chain refund is sent to' })),
    txHash: Type.Union([Type.String(), Type.Null()]),
    failureReason: Type.Optional(Type.String()),
    exceptionId: Type.Optional(
      Type.String({
        description: 'The payment exception it sends back; its `amount` is then 0 in the payment currency',
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { description: 'A refund of a payment, whole or in part, or of one of its exceptions' },
);
export type RefundView = Static<typeof Refund>;

export function toRefundView(row: RefundRow): RefundView {
  return {
    id: row.id,
    paymentId: row.payment_id,
    merchantId: row.merchant_id,
    method: row.method,
    status: row.status,
    amount: { unit: `iso4217/${row.fiat_currency}`, value: row.fiat_value },
    ...(row.token_asset && row.token_value !== null
      ? { tokenAmount: { unit: `caip19/${row.token_asset}`, value: row.token_value } }
      : {}),
    ...(row.destination ? { destination: row.destination } : {}),
    txHash: row.tx_hash,
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    ...(row.exception_id ? { exceptionId: row.exception_id } : {}),
    createdAt: row.created_at.toISOString(),
    ...(row.completed_at ? { completedAt: row.completed_at.toISOString() } : {}),
  };
}
