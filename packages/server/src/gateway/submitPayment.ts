import type { Task } from 'graphile-worker';
import type { AppContext } from '../context.ts';
import { changePaymentStatus, InvalidTransitionError } from '../payments/transitions.ts';
import { type AcceptedConfirmation, acceptedConfirmation, markProcessing, SUBMIT_PAYMENT_TASK, watchBuyerTransaction } from './confirmation.ts';
import { paymentMethodOf } from './methods/index.ts';
import type { Submission } from './methods/paymentMethod.ts';
import type { GatewayServices } from './services.ts';

function submit(ctx: AppContext, services: GatewayServices, paymentId: string, accepted: AcceptedConfirmation): Promise<Submission> {
  const { option } = accepted;
  const values = accepted.results.map((result) => result.data[0] ?? '');
  return paymentMethodOf(option.terms).submit(ctx, services, paymentId, option, values);
}

function transitionContext(ctx: AppContext) {
  return { db: ctx.db, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now: ctx.clock.now() };
}

/**
 * Makes the payment `processing` if the confirming request could not, and hands the buyer's authorisation or
 * transaction to the chain layer, which journals and sends it; nothing here waits for a block. Safe to run again
 * after a crash at any point: the journals keep it to one submission.
 */
async function submitConfirmedPayment(ctx: AppContext, services: GatewayServices, paymentId: string): Promise<void> {
  const accepted = await acceptedConfirmation(ctx.db, paymentId);
  if (!accepted) return;
  try {
    if ((await markProcessing(transitionContext(ctx), accepted, paymentId)) !== 'processing') return;
  } catch (error) {
    // Expired or cancelled before the confirming request could mark it: nothing may be submitted.
    if (error instanceof InvalidTransitionError) return;
    throw error;
  }
  // Watched since the confirm; again here for a confirmation accepted before buyers' transfers were watched.
  await watchBuyerTransaction(ctx, ctx.db, paymentId, accepted.option, accepted.results);
  const submission = await submit(ctx, services, paymentId, accepted);
  if (submission) await changePaymentStatus(transitionContext(ctx), paymentId, 'failed', { failure_code: submission.refused });
}

/**
 * Enqueued with the confirmation it submits, retried with backoff while the chain or its node fails. When the
 * last attempt fails too, the payment becomes `failed` instead of staying `processing` for ever.
 */
export function submitPaymentTask(ctx: AppContext): Task {
  return async (payload, helpers) => {
    const { paymentId } = payload as { paymentId: string };
    const services = ctx.gateway;
    if (!services) throw new Error('this process has no chain services to submit payments with');
    try {
      await submitConfirmedPayment(ctx, services, paymentId);
    } catch (error) {
      if (helpers.job.attempts >= helpers.job.max_attempts) {
        await changePaymentStatus(transitionContext(ctx), paymentId, 'failed', { failure_code: 'submission_failed' }).catch((refused: unknown) => {
          // Never made processing (or already final): there is nothing to fail.
          if (!(refused instanceof InvalidTransitionError)) throw refused;
        });
      }
      throw error;
    }
  };
}

export function gatewayTasks(ctx: AppContext) {
  return { [SUBMIT_PAYMENT_TASK]: submitPaymentTask(ctx) };
}
