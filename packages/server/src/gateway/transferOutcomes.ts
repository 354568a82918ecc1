import type { Transaction } from 'kysely';
import type { ChainRegistry } from '../chains/registry.ts';
import { MINED_BEFORE_OPTION } from '../chains/evm/watches.ts';
import type { FinalTransfer, TransferOutcomeHandler } from '../chains/transferOutcomes.ts';
import type { Database } from '../db/schema.ts';
import { enqueueJob } from '../jobs/queue.ts';
import { changePaymentStatus, InvalidTransitionError, type TransitionContext } from '../payments/transitions.ts';
import { failBatch, SETTLEMENT_PURPOSE, settleBatch } from '../settlement/batches.ts';
import { acceptedConfirmation, markProcessing, SUBMIT_PAYMENT_TASK } from './confirmation.ts';

/** The failure code a payment gets when the transfer that was to pay it ends without paying it. */
function failureCode(transfer: FinalTransfer): string {
  switch (transfer.purpose) {
    case 'native_payment':
      if (transfer.status === 'expired') return 'transfer_not_mined';
      return transfer.reason === MINED_BEFORE_OPTION ? 'transfer_predates_option' : 'transfer_reverted';
    case 'permit2_approval':
      return 'approval_failed';
    default:
      return transfer.status === 'expired' ? 'blockhash_expired' : 'transaction_failed';
  }
}

/** Journal purposes and watch kinds whose transfer pays a payment (the reference is the payment id). */
const PAYING_PURPOSES = new Set(['eip3009_receive', 'permit2_transfer', 'native_payment', 'payment']);

export interface TransferOutcomeContext {
  chains: ChainRegistry;
  /** Links in the events a payment change records name the service's base URL, known once it listens. */
  baseUrl: () => string;
  clock: { now(): Date };
  submitMaxAttempts: number;
  onProblem: (message: string) => void;
}

/**
 * What the end of a followed transfer does, in the transaction that records it: a payment's transfer makes it
 * `succeeded` or `failed`; a confirmed Permit2 approval queues the permit's submission; a settlement transfer
 * settles or releases its batch.
 */
export function paymentTransferOutcomes(context: TransferOutcomeContext): TransferOutcomeHandler {
  return async (trx, transfer) => {
    if (transfer.reference === null) return;
    const transition: TransitionContext = { db: trx, chains: context.chains, baseUrl: context.baseUrl(), now: context.clock.now() };
    if (transfer.purpose === SETTLEMENT_PURPOSE) return settlementOutcome(trx, transition, transfer);
    const paymentId = transfer.reference;
    if (transfer.purpose === 'permit2_approval' && transfer.status === 'confirmed') {
      // The allowance is there now: the permit can be relayed.
      await enqueueJob(trx, SUBMIT_PAYMENT_TASK, { paymentId }, { jobKey: `submit:${paymentId}`, maxAttempts: context.submitMaxAttempts });
      return;
    }
    if (!PAYING_PURPOSES.has(transfer.purpose) && transfer.purpose !== 'permit2_approval') return;
    const payment = await trx.selectFrom('payments').select('id').where('id', '=', paymentId).executeTakeFirst();
    if (!payment) {
      context.onProblem(`transfer ${transfer.hash} ended ${transfer.status} for ${paymentId}, which is no payment`);
      return;
    }
    try {
      const accepted = await acceptedConfirmation(trx, paymentId);
      if (accepted) await markProcessing(transition, accepted, paymentId);
      if (transfer.status === 'confirmed') await changePaymentStatus(transition, paymentId, 'succeeded', { tx_hash: transfer.hash, tx_nonce: transfer.nonce });
      else await changePaymentStatus(transition, paymentId, 'failed', { failure_code: failureCode(transfer) });
    } catch (error) {
      if (!(error instanceof InvalidTransitionError)) throw error;
      // Final already (the submission gave up first): the chain's word stays on the transfer's record, and is said here.
      context.onProblem(`transfer ${transfer.hash} for payment ${paymentId} ended ${transfer.status}, but the payment is ${error.from}`);
    }
  };
}

async function settlementOutcome(trx: Transaction<Database>, transition: TransitionContext, transfer: FinalTransfer): Promise<void> {
  const batchId = transfer.reference as string;
  if (transfer.status === 'confirmed' && transfer.hash) await settleBatch(trx, transition, batchId, transfer.hash);
  // Expired unseen (Solana): it never landed, and the next settlement round journals a fresh transfer for the batch.
  else if (transfer.status === 'failed') await failBatch(trx, batchId, transfer.reason ?? 'the transfer failed on chain', transition.now);
}
