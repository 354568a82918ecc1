import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { Nullable } from '../http/schemas.ts';
import { readAsUnpaid } from '../payments/listFilters.ts';
import type { PaymentRow } from '../payments/paymentResource.ts';
import { effectiveFailureCode, effectiveStatus, isTerminal } from '../payments/stateMachine.ts';
import { POINT_OF_SALE_PATH } from './devices.ts';

const Amount = Type.Object({
  unit: Type.String({ description: '`iso4217/<CODE>`' }),
  value: Type.String({ description: 'Minor units' }),
});

/** A payment charged on a device, as the device shows it: the amount with its tip, and where to pay and see it paid. */
export const ChargeView = Type.Object({
  paymentId: Type.String(),
  status: Type.Union(
    ['requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled'].map((status) =>
      Type.Literal(status),
    ),
  ),
  isFinal: Type.Boolean(),
  failureCode: Type.Optional(Type.String()),
  amount: { ...Amount, description: 'What the buyer pays: baseAmount plus tip' },
  baseAmount: Amount,
  tip: Amount,
  note: Nullable(Type.String()),
  paymentUrl: Type.String({ description: 'The payment link a wallet opens: show it as a QR code, write it to a tag' }),
  receiptUrl: Type.String({ description: "The payment's receipt page, for the buyer to keep" }),
  transaction: Type.Optional(Type.Object({ networkId: Type.String(), hash: Type.String() })),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

export type ChargeRow = PaymentRow & { base_value: string; tip_value: string; note: string | null; device_id: string };

export function receiptUrl(baseUrl: string, paymentId: string): string {
  return `${baseUrl}${POINT_OF_SALE_PATH}/receipts/${paymentId}`;
}

export function toChargeView(ctx: AppContext, row: ChargeRow, now: Date) {
  const status = effectiveStatus(row, now);
  const unit = `iso4217/${row.fiat_currency}`;
  const failureCode = status === 'failed' ? (effectiveFailureCode(row, now) ?? 'failed') : undefined;
  return {
    paymentId: row.id,
    status,
    isFinal: isTerminal(status),
    ...(failureCode ? { failureCode } : {}),
    amount: { unit, value: String(row.fiat_value) },
    baseAmount: { unit, value: String(row.base_value) },
    tip: { unit, value: String(row.tip_value) },
    note: row.note,
    paymentUrl: `${ctx.config.checkoutUrl}/${row.id}`,
    receiptUrl: receiptUrl(ctx.config.baseUrl, row.id),
    ...(row.tx_hash && row.network ? { transaction: { networkId: row.network, hash: row.tx_hash } } : {}),
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
  };
}

function chargeRows(ctx: AppContext) {
  return ctx.db
    .selectFrom('point_of_sale_charges as charge')
    .innerJoin('payments', 'payments.id', 'charge.payment_id')
    .selectAll('payments')
    .select(['charge.base_value', 'charge.tip_value', 'charge.note', 'charge.device_id']);
}

/** A payment the device charged; any other payment, of its merchant or not, is reported as missing. */
export async function chargeOfDevice(ctx: AppContext, deviceId: string, paymentId: string): Promise<ChargeRow> {
  const row = await chargeRows(ctx)
    .where('charge.payment_id', '=', paymentId)
    .where('charge.device_id', '=', deviceId)
    .executeTakeFirst();
  if (!row) throw ApiError.notFound(`Payment ${paymentId.slice(0, 64)} not found.`, 'payment_not_found');
  return row;
}

/** The device's charges made at or after `from`, newest first. */
export function chargesOfDeviceSince(ctx: AppContext, deviceId: string, from: Date, limit: number) {
  return chargeRows(ctx)
    .where('charge.device_id', '=', deviceId)
    .where('charge.created_at', '>=', from)
    .orderBy('charge.created_at', 'desc')
    .limit(limit)
    .execute();
}

/**
 * What the device's charges since `from` took, over all of them (the list shows the newest few hundred): succeeded
 * ones with their tips, and those still open at `now` as the list reads them.
 */
export async function chargeTotalsOfDeviceSince(ctx: AppContext, deviceId: string, from: Date, now: Date) {
  const totals = await ctx.db
    .selectFrom('point_of_sale_charges as charge')
    .innerJoin('payments', 'payments.id', 'charge.payment_id')
    .select((eb) => [
      sql<string>`count(*) FILTER (WHERE payments.status = 'succeeded')`.as('succeeded_count'),
      sql<string>`coalesce(sum(payments.fiat_value) FILTER (WHERE payments.status = 'succeeded'), 0)`.as(
        'succeeded_amount',
      ),
      sql<string>`coalesce(sum(charge.tip_value) FILTER (WHERE payments.status = 'succeeded'), 0)`.as('succeeded_tips'),
      eb.fn
        .countAll<string>()
        .filterWhere((open) => open.or([open('payments.status', '=', 'processing'), readAsUnpaid(open, now)]))
        .as('open_count'),
    ])
    .where('charge.device_id', '=', deviceId)
    .where('charge.created_at', '>=', from)
    .executeTakeFirstOrThrow();
  return {
    succeededCount: Number(totals.succeeded_count),
    succeededAmount: totals.succeeded_amount,
    succeededTips: totals.succeeded_tips,
    openCount: Number(totals.open_count),
  };
}

/** A public receipt's payment with its charge, when it was charged on a device. */
export function chargeForReceipt(ctx: AppContext, paymentId: string) {
  return chargeRows(ctx)
    .innerJoin('merchants', 'merchants.id', 'payments.merchant_id')
    .select(['merchants.name as merchant_name'])
    .where('charge.payment_id', '=', paymentId)
    .executeTakeFirst();
}

export const PaymentIdParams = Type.Object({ paymentId: Type.String({ minLength: 1, maxLength: 64 }) });
