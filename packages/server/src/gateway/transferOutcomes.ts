import { NoResultError, type Transaction } from 'kysely';
import type { ChainRegistry } from '../chains/registry.ts';
import type { FinalTransfer, TransferOutcomeHandler } from '../chains/transferOutcomes.ts';
import type { Database } from '../db/schema.ts';
import { changePaymentStatus, InvalidTransitionError, type TransitionContext } from '../payments/transitions.ts';
import { failRefund, REFUND_PURPOSE, succeedRefund } from '../refunds/refundBook.ts';
import { failBatch, SETTLEMENT_PURPOSE, settleBatch } from '../settlement/batches.ts';
import { acceptedConfirmation, markProcessing, submissionDueAgain } from './confirmation.ts';
import { transferPurposes } from './methods/index.ts';
import type { Logger } from '../log.ts';

export interface TransferOutcomeContext {
  chains: ChainRegistry;
  /** Links in the events a payment change records name the service's base URL, known once it listens. */
  baseUrl: () => string;
  clock: { now(): Date };
  log: Logger;
}

/**
 * What the end of a followed transfer does, in the transaction that records it: a payment's transfer makes it
 * `succeeded` or `failed`; a confirmed Permit2 approval makes the permit's submission due again; a settlement transfer
 * settles or releases its batch; a refund's transfer makes the refund succeeded or failed.
 */
export function paymentTransferOutcomes(context: TransferOutcomeContext): TransferOutcomeHandler {
  return async (trx, transfer) => {
    if (transfer.reference === null) return;
    const transition: TransitionContext = {
      db: trx,
      chains: context.chains,
      baseUrl: context.baseUrl(),
      now: context.clock.now(),
    };
    if (transfer.purpose === SETTLEMENT_PURPOSE) return settlementOutcome(trx, transition, transfer);
    if (transfer.purpose === REFUND_PURPOSE) return refundOutcome(trx, transition, transfer);
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
    }
  };
}

async function settlementOutcome(
  trx: Transaction<Database>,
  transition: TransitionContext,
  transfer: FinalTransfer,
): Promise<void> {
  const batchId = transfer.reference as string;
  if (transfer.status === 'confirmed' && transfer.hash) await settleBatch(trx, transition, batchId, transfer.hash);
  // Expired unseen (Solana): it never landed, and the next settlement round journals a fresh transfer for the batch.
  else if (transfer.status === 'failed')
    await failBatch(trx, batchId, transfer.reason ?? 'the transfer failed on chain', transition.now);
}

async function refundOutcome(
  trx: Transaction<Database>,
  transition: TransitionContext,
  transfer: FinalTransfer,
): Promise<void> {
  const refundId = transfer.reference as string;
  if (transfer.status === 'confirmed' && transfer.hash)
    await succeedRefund(trx, refundId, transfer.hash, transition.now);
  // Expired unseen (Solana): it never landed, and the next refund round journals a fresh transfer.
  else if (transfer.status === 'failed')
    await failRefund(trx, refundId, transfer.reason ?? 'the transfer failed on chain', transition.now);
}
