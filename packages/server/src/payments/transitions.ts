import { sql, type Transaction, type Updateable } from 'kysely';
import { type Db, inTransaction } from '../db/database.ts';
import type { Database, PaymentStatus, PaymentsTable } from '../db/schema.ts';
import { recordEvent } from '../webhooks/events.ts';
import { feeColumnsOnSuccess } from '../settlement/feeSchedules.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { toPaymentItem, type PaymentRow } from './paymentResource.ts';
import { canTransition } from './stateMachine.ts';

export const PAYMENT_STATUS_CHANNEL = 'payment_status';

export class InvalidTransitionError extends Error {
  constructor(
    readonly from: PaymentStatus,
    readonly to: PaymentStatus,
  ) {
    super(`a ${from} payment cannot become ${to}`);
  }
}

export interface TransitionContext {
  db: Db;
  chains: ChainRegistry;
  baseUrl: string;
  now: Date;
}

/** Records the payment's webhook event and wakes long-pollers in every process, inside `trx`. */
export async function announcePayment(
  trx: Transaction<Database>,
  context: Omit<TransitionContext, 'db'>,
  payment: PaymentRow,
  type: Parameters<typeof recordEvent>[1]['type'],
): Promise<void> {
  const merchant = await trx.selectFrom('merchants').selectAll().where('id', '=', payment.merchant_id).executeTakeFirstOrThrow();
  await recordEvent(trx, {
    partnerId: payment.partner_id,
    merchantId: payment.merchant_id,
    type,
    object: toPaymentItem(payment, merchant, context.chains, context.baseUrl, context.now),
  });
  await sql`SELECT pg_notify(${PAYMENT_STATUS_CHANNEL}, ${payment.id})`.execute(trx);
}

/**
 * The one way a payment changes state (D8): checks the transition, writes the state and `changes`, records the
 * webhook event and notifies long-pollers, in one transaction. Asking for the state the payment is already in
 * changes nothing and returns it.
 */
export async function changePaymentStatus(
  context: TransitionContext,
  paymentId: string,
  to: PaymentStatus,
  changes: Omit<Updateable<PaymentsTable>, 'status' | 'id'> = {},
): Promise<{ payment: PaymentRow; changed: boolean }> {
  return inTransaction(context.db, async (trx) => {
    const current = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).forUpdate().executeTakeFirstOrThrow();
    if (current.status === to) return { payment: current, changed: false };
    if (!canTransition(current.status, to)) throw new InvalidTransitionError(current.status, to);
    // Fees are fixed when the payment succeeds, from the partner's schedule at that moment (D15).
    const fees = to === 'succeeded' ? await feeColumnsOnSuccess(trx, { ...current, ...changes } as PaymentRow) : {};
    const payment = await trx
      .updateTable('payments')
      .set({ ...changes, ...fees, status: to, updated_at: context.now })
      .where('id', '=', paymentId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await announcePayment(trx, context, payment, `payment.${to}` as `payment.${Exclude<PaymentStatus, 'requires_action'>}`);
    return { payment, changed: true };
  });
}
