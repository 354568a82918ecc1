import type { Selectable, Transaction } from 'kysely';
import { afterCommit } from '../db/afterCommit.ts';
import { inTransaction } from '../db/database.ts';
import type { Database, RefundsTable } from '../db/schema.ts';
import { logDomainEvent } from '../log.ts';
import type { PayoutBook } from '../payouts/payout.ts';
import { recordEvent } from '../webhooks/events.ts';
import { toRefundView } from './refundResource.ts';
import { postPayoutSent, postPayoutVoided, refundOwner } from '../ledger/ledger.ts';

/** The purpose under which the chain layer's journals record refund transfers, referenced by refund id. */
export const REFUND_PURPOSE = 'refund';

type LoggedRefund = Pick<
  Selectable<RefundsTable>,
  | 'id'
  | 'payment_id'
  | 'merchant_id'
  | 'partner_id'
  | 'fiat_value'
  | 'fiat_currency'
  | 'token_asset'
  | 'token_value'
  | 'tx_hash'
>;

/** The `info` line of a refund's event, once the transaction that records it commits: ids and amounts only. */
function logRefundEvent(
  trx: Transaction<Database>,
  event: 'refund.sent' | 'refund.succeeded' | 'refund.failed',
  refund: LoggedRefund,
): Promise<void> {
  return afterCommit(trx, () =>
    logDomainEvent(event, {
      refundId: refund.id,
      paymentId: refund.payment_id,
      merchantId: refund.merchant_id,
      partnerId: refund.partner_id,
      amount: refund.fiat_value,
      currency: refund.fiat_currency,
      asset: refund.token_asset,
      tokenAmount: refund.token_value,
      txHash: refund.tx_hash,
    }),
  );
}

/**
 * An on-chain refund's transfer ended: the collector paid what its owner's account paid when the refund was made, or
 * the owner holds it again.
 */
function postRefundEnded(trx: Transaction<Database>, refund: Selectable<RefundsTable>) {
  if (refund.method !== 'onchain' || !refund.token_asset || !refund.token_value) return Promise.resolve();
  const payout = { owner: refundOwner(refund), asset: refund.token_asset, amount: BigInt(refund.token_value) };
  return refund.status === 'succeeded'
    ? postPayoutSent(trx, `refund_sent:${refund.id}`, payout)
    : postPayoutVoided(trx, `refund_voided:${refund.id}`, payout);
}

/** The pending on-chain refund ends: succeeded with its transaction, or failed; its event is recorded with it. */
async function endRefund(
  trx: Transaction<Database>,
  refundId: string,
  end: { status: 'succeeded'; txHash: string } | { status: 'failed'; reason: string },
  now: Date,
): Promise<boolean> {
  const refund = await trx
    .updateTable('refunds')
    .set({
      status: end.status,
      ...(end.status === 'succeeded' ? { tx_hash: end.txHash } : { failure_reason: end.reason.slice(0, 1000) }),
      completed_at: now,
      updated_at: now,
    })
    .where('id', '=', refundId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
  if (!refund) return false;
  await postRefundEnded(trx, refund);
  await recordEvent(trx, {
    partnerId: refund.partner_id,
    merchantId: refund.merchant_id,
    type: end.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed',
    object: toRefundView(refund),
  });
  await logRefundEvent(trx, end.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed', refund);
  return true;
}

export function succeedRefund(trx: Transaction<Database>, refundId: string, txHash: string, now: Date) {
  return endRefund(trx, refundId, { status: 'succeeded', txHash }, now);
}

export function failRefund(trx: Transaction<Database>, refundId: string, reason: string, now: Date) {
  return endRefund(trx, refundId, { status: 'failed', reason }, now);
}

/** How on-chain refunds are paid from the collector: one pending `refunds` row per transfer. */
export function refundBook(clock: { now(): Date }): PayoutBook {
  return {
    purpose: REFUND_PURPOSE,
    // A refund is the buyer's money going back: no merchant status holds it.
    held: async () => false,
    lock: async (trx, refundId) =>
      (await trx
        .selectFrom('refunds')
        .select('id')
        .where('id', '=', refundId)
        .where('method', '=', 'onchain')
        .where('status', '=', 'pending')
        .forUpdate()
        .skipLocked()
        .executeTakeFirst()) !== undefined,
    // A refund stays pending until its transfer is final; the journal itself says that one was made.
    // A pending refund is driven again every round until final: its `refund.sent` line is written once, with the
    // transaction that journals its transfer.
    markSent: async (trx, refundId, _now, journaledNow) => {
      if (!journaledNow) return;
      const refund = await trx.selectFrom('refunds').selectAll().where('id', '=', refundId).executeTakeFirst();
      if (refund) await logRefundEvent(trx, 'refund.sent', refund);
    },
    fail: async (trx, refundId, reason, now) => {
      await failRefund(trx, refundId, reason, now);
    },
    complete: (db, refundId, hash) => inTransaction(db, (trx) => succeedRefund(trx, refundId, hash, clock.now())),
  };
}
