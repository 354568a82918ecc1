import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { type PaymentException, paidByColumns } from '../payments/paymentExceptions.ts';
import { announcePayment, changePaymentStatus, type TransitionContext } from '../payments/transitions.ts';
import { exceptionsAfterDeposit, type judgeDeposit } from './depositExceptions.ts';

/**
 * The payment a found transfer names, locked for the transaction that records the transfer, with what judging it
 * needs: whether its merchant takes payments now (active and not deleted). Undefined when there is no such payment.
 */
export async function lockPaymentForTransfer(trx: Transaction<Database>, paymentId: string) {
  const payment = await trx
    .selectFrom('payments')
    .innerJoin('merchants', 'merchants.id', 'payments.merchant_id')
    .select([
      'payments.merchant_id',
      'payments.status',
      'payments.expires_at',
      'payments.exceptions',
      'merchants.status as merchant_status',
      'merchants.deleted_at as merchant_deleted_at',
    ])
    .where('payments.id', '=', paymentId)
    .forUpdate(['payments'])
    .executeTakeFirst();
  if (!payment) return undefined;
  const { merchant_status, merchant_deleted_at, ...locked } = payment;
  return { ...locked, merchantTakesPayments: merchant_status === 'active' && merchant_deleted_at === null };
}

/** A transfer that reached the collector (or a payment's deposit address) for a payment, judged by `judgeDeposit`. */
export interface ReceivedTransfer {
  paymentId: string;
  /** CAIP-2 network and CAIP-19 asset of what arrived. */
  network: string;
  asset: string;
  symbol: string | null;
  amount: bigint;
  /** What the payment asks for in that asset, when it takes it. */
  expected: bigint | undefined;
  txHash: string;
  /** CAIP-10 account that sent it. */
  from: string;
  /** Shown as the payment's wallet app when it pays the payment. */
  provider: string;
}

/** The buyer and token a transfer that pays a payment puts on it, for the amount asked. */
export function paidByTransfer(transfer: ReceivedTransfer) {
  return paidByColumns({ ...transfer, value: (transfer.expected ?? transfer.amount).toString() });
}

/**
 * What a received transfer does, in the transaction that recorded it, with the payment's row locked and its
 * exceptions as they were: the exceptions follow the transfer (`exceptionsAfterDeposit`); a transfer that brings the
 * amount asked makes the payment succeed through the one state change, for the amount asked, and an excess is
 * announced as `payment.overpaid`; anything else changes only the exceptions and is announced with its own event.
 */
export async function applyReceivedTransfer(
  trx: Transaction<Database>,
  transition: TransitionContext,
  current: readonly PaymentException[],
  transfer: ReceivedTransfer,
  judged: ReturnType<typeof judgeDeposit>,
): Promise<void> {
  const exceptions = exceptionsAfterDeposit(current, {
    ...judged,
    exceptionId: newId('exc'),
    provider: transfer.provider,
    network: transfer.network,
    asset: transfer.asset,
    amount: transfer.amount,
    ...(transfer.expected === undefined ? {} : { expected: transfer.expected }),
    txHash: transfer.txHash,
    from: transfer.from,
    at: transition.now.toISOString(),
  });
  const written =
    JSON.stringify(exceptions) !== JSON.stringify(current)
      ? await trx
          .updateTable('payments')
          .set({ exceptions: JSON.stringify(exceptions), updated_at: transition.now })
          .where('id', '=', transfer.paymentId)
          .returningAll()
          .executeTakeFirstOrThrow()
      : undefined;
  if (judged.outcome === 'paid' || judged.outcome === 'overpaid') {
    // Already processing when the transfer was seen above depth; the buyer and token were set then.
    await changePaymentStatus(transition, transfer.paymentId, 'processing', paidByTransfer(transfer));
    const { payment: paid } = await changePaymentStatus(transition, transfer.paymentId, 'succeeded', {
      tx_hash: transfer.txHash,
    });
    if (judged.outcome === 'overpaid') await announcePayment(trx, transition, paid, 'payment.overpaid');
    return;
  }
  // A held transfer is the operator's to look into (`paygate screening blocked`); no event tells of it.
  if (written && judged.outcome !== 'held')
    await announcePayment(trx, transition, written, `payment.${judged.outcome}`);
}
