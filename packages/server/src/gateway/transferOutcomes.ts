import { NoResultError, type Transaction } from 'kysely';
import { INFLOW_RETURN_PURPOSE, inflowReturnBook } from '../collectorInflows/inflowReturns.ts';
import type { FinalTransfer, TransferOutcomeHandler } from '../chains/transferOutcomes.ts';
import type { Database } from '../db/schema.ts';
import { withDepositTables } from '../deposits/depositTables.ts';
import { applyReceivedTransfer, lockPaymentForTransfer } from '../deposits/receivedTransfer.ts';
import { COLLECTOR, postTransferReceived, postUnattributed } from '../ledger/ledger.ts';
import {
  changePaymentStatus,
  InvalidTransitionError,
  type OutcomeContext,
  type TransitionContext,
} from '../payments/transitions.ts';
import type { PayoutBook } from '../payouts/payout.ts';
import { REFUND_PURPOSE, refundBook } from '../refunds/refundBook.ts';
import { batchBook } from '../settlement/batchBook.ts';
import { SETTLEMENT_PURPOSE } from '../settlement/batches.ts';
import { acceptedConfirmation, markProcessing, submissionDueAgain } from './confirmation.ts';
import { transferPurposes } from '../paymentMethods/registry.ts';
import { REFUSED_TRANSFER, recordRefusedTransfer } from './refusedTransfers.ts';

/**
 * What the end of a followed transfer does, in the transaction that records it: a payment's transfer makes it
 * `succeeded` or `failed`; a confirmed Permit2 approval makes the permit's submission due again; a settlement transfer
 * settles or releases its batch; a refund's transfer makes the refund succeeded or failed, and one sending back an
 * unsolicited transfer ends that try; a transfer a confirm refused becomes the payment's exception.
 */
export function paymentTransferOutcomes(context: OutcomeContext): TransferOutcomeHandler {
  return async (trx, transfer) => {
    if (transfer.reference === null) return;
    const transition: TransitionContext = {
      db: trx,
      chains: context.chains,
      baseUrl: context.baseUrl(),
      now: context.clock.now(),
    };
    const payouts: Record<string, PayoutBook> = {
      [SETTLEMENT_PURPOSE]: batchBook(() => transition),
      [REFUND_PURPOSE]: refundBook(context.clock),
      [INFLOW_RETURN_PURPOSE]: inflowReturnBook(),
    };
    const book = payouts[transfer.purpose];
    if (book) return payoutOutcome(trx, book, transfer, transition.now);
    if (transfer.purpose === REFUSED_TRANSFER) return recordRefusedTransfer(trx, transition, transfer);
    const paymentId = transfer.reference;
    const purpose = transferPurposes.get(transfer.purpose);
    if (!purpose) return;
    if (!purpose.paysPayment && transfer.status === 'confirmed') {
      // What the submission waited for is there now (a Permit2 approval's allowance): it can go on.
      await submissionDueAgain(trx, paymentId);
      return;
    }
    const [to, changes] =
      transfer.status === 'confirmed'
        ? (['succeeded', { tx_hash: transfer.hash, tx_nonce: transfer.nonce }] as const)
        : (['failed', { failure_code: purpose.failureCode(transfer) }] as const);
    try {
      await changePaymentStatus(transition, paymentId, to, changes);
    } catch (error) {
      if (error instanceof NoResultError) {
        context.log.warn(`transfer ${transfer.hash} ended ${transfer.status} for ${paymentId}, which is no payment`);
        return;
      }
      if (!(error instanceof InvalidTransitionError)) throw error;
      const accepted = error.from === 'requires_action' ? await acceptedConfirmation(trx, paymentId) : undefined;
      if (accepted) {
        // A confirmation an earlier version accepted without making the payment processing; the chain was quicker.
        await markProcessing(transition, accepted, paymentId);
        await changePaymentStatus(transition, paymentId, to, changes);
        return;
      }
      // Final already (the submission gave up first): the chain's word stays on the transfer's record, and is said here.
      context.log.warn(
        `transfer ${transfer.hash} for payment ${paymentId} ended ${transfer.status}, but the payment is ${error.from}`,
      );
      if (transfer.status === 'confirmed') await recordLateTransfer(trx, transition, paymentId, transfer);
    }
  };
}

/**
 * A payout's transfer ended: the payout completes with it, or is released when it failed. One that expired unseen
 * (Solana) never landed: the next round journals a fresh transfer for it.
 */
async function payoutOutcome(
  trx: Transaction<Database>,
  book: PayoutBook,
  transfer: FinalTransfer,
  now: Date,
): Promise<void> {
  const payoutId = transfer.reference as string;
  if (transfer.status === 'confirmed' && transfer.hash) await book.complete(trx, payoutId, transfer.hash);
  else if (transfer.status === 'failed')
    await book.fail(trx, payoutId, transfer.reason ?? 'the transfer failed on chain', now);
}

/**
 * A payment's transfer landed after the payment closed unpaid (its submission gave up first): the buyer's money is in
 * the collector (or, for x402, at the merchant's own address, recorded there as a deposit), so it is the payment's
 * `paid_late` exception, owed to the buyer who sent it until the merchant sends it back or accepts it as the payment.
 * Recorded once per transaction. Without a known buyer there is no one to send it back to, and the ledger holds it
 * as unattributed for the operator to look into.
 */
async function recordLateTransfer(
  trx: Transaction<Database>,
  transition: TransitionContext,
  paymentId: string,
  transfer: FinalTransfer,
): Promise<void> {
  const { chain, hash } = transfer;
  const payment = await lockPaymentForTransfer(trx, paymentId);
  const paid = await trx
    .selectFrom('payments')
    .select(['token_asset', 'token_value', 'token_symbol', 'buyer_account', 'buyer_provider_name'])
    .where('id', '=', paymentId)
    .executeTakeFirst();
  if (!payment || !paid?.token_asset || !paid.token_value) return;
  if (hash && payment.exceptions.some((exception) => exception.txHash === hash)) return;
  const received = { merchantId: payment.merchant_id, asset: paid.token_asset, amount: BigInt(paid.token_value) };
  // An x402 transfer to the merchant's own address is held there as a deposit, entered when it was recorded.
  const deposit = hash
    ? await withDepositTables(trx)
        .selectFrom('evm_deposits')
        .select('from_address')
        .where('chain', '=', chain)
        .where('tx_hash', '=', hash)
        .executeTakeFirst()
    : undefined;
  const sender = deposit ? `${chain}:${deposit.from_address}` : paid.buyer_account;
  const entry = `late_transfer:${hash ?? paymentId}`;
  if (!hash || !sender) return postUnattributed(trx, entry, received);
  if (!deposit) await postTransferReceived(trx, entry, { heldBy: COLLECTOR, ...received });
  await applyReceivedTransfer(
    trx,
    transition,
    payment.exceptions,
    {
      paymentId,
      network: chain,
      asset: paid.token_asset,
      symbol: paid.token_symbol,
      amount: received.amount,
      expected: undefined,
      txHash: hash,
      from: sender,
      provider: paid.buyer_provider_name ?? '',
    },
    { outcome: 'paid_late', received: received.amount },
  );
}
