import type { Namespace } from '../chains/caip.ts';
import type { AppContext } from '../context.ts';
import { changePaymentStatus, InvalidTransitionError } from '../payments/transitions.ts';
import {
  finishSubmission,
  markProcessing,
  retrySubmissionAfter,
  type TakenSubmission,
  takeSubmission,
  watchBuyerTransaction,
} from './confirmation.ts';
import { paymentMethodOf } from '../paymentMethods/registry.ts';
import type { ConfirmationCheck } from './methods/paymentMethod.ts';
import type { ChainServices } from './chainServices.ts';

/**
 * How long a taken submission is no other process's. On EVM, longer than any submission takes (its node calls time
 * out well before), as a second relay beside one still under way is not safe. A Solana submission sends the buyer's
 * signed transaction, which lands once however often it is sent (one signature), and whose blockhash expires 60 to
 * 90 s after it was built: a process that dies holding it must not keep it that long. 20 s outlasts a send's node
 * calls (15 s at most to a URL that hangs, `SOLANA_RPC_TIMEOUT_MS`) and leaves another process most of the life.
 */
export const SUBMISSION_LEASE_MS: Record<Namespace, number> = { eip155: 60_000, solana: 20_000 };
const MAX_RETRY_DELAY_MS = 5 * 60_000;

/** After the nth failed attempt: 2 s, 4 s, 8 s ... up to 5 minutes. */
export function retryDelayMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.min(attempt, 20), MAX_RETRY_DELAY_MS);
}

function transitionContext(ctx: AppContext) {
  return { db: ctx.db, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now: ctx.clock.now() };
}

/**
 * Makes the payment `processing` if the confirming request could not (an earlier version's confirmation), and hands
 * the buyer's authorisation or transaction to the chain layer, which journals and sends it; nothing here waits for
 * a block. Safe to run again after a crash at any point: the journals keep it to one submission.
 */
async function submitTaken(
  ctx: AppContext,
  services: ChainServices,
  paymentId: string,
  taken: TakenSubmission,
  check: ConfirmationCheck | undefined,
): Promise<void> {
  try {
    if ((await markProcessing(transitionContext(ctx), taken, paymentId)) !== 'processing') return;
  } catch (error) {
    // Expired or cancelled before the confirming request could mark it: nothing may be submitted.
    if (error instanceof InvalidTransitionError) return;
    throw error;
  }
  // Watched since the confirm; again here for a confirmation accepted before buyers' transfers were watched.
  await watchBuyerTransaction(ctx, ctx.db, paymentId, taken.option, taken.results);
  const values = taken.results.map((result) => result.data[0] ?? '');
  const submission = await paymentMethodOf(taken.option.terms).submit(
    ctx,
    services,
    paymentId,
    taken.option,
    values,
    // What the confirm measured holds for its first attempt only, made moments after it.
    taken.attempt === 1 ? check : undefined,
  );
  if (submission)
    await changePaymentStatus(transitionContext(ctx), paymentId, 'failed', { failure_code: submission.refused });
}

/**
 * Submits the payment's confirmation if it is due and no other process has it. A failed attempt is due again after
 * a backoff; when the last one fails too, the payment becomes `failed` instead of staying `processing` for ever.
 * `check` is what the confirming request measured, when it is in this process. Throws what made an attempt fail.
 */
export async function submitDuePayment(
  ctx: AppContext,
  services: ChainServices,
  paymentId: string,
  check?: ConfirmationCheck,
): Promise<void> {
  const taken = await takeSubmission(ctx.db, paymentId, SUBMISSION_LEASE_MS);
  if (!taken) return;
  try {
    await submitTaken(ctx, services, paymentId, taken, check);
  } catch (error) {
    if (taken.attempt < services.submitMaxAttempts) {
      await retrySubmissionAfter(ctx.db, paymentId, retryDelayMs(taken.attempt));
      throw error;
    }
    await changePaymentStatus(transitionContext(ctx), paymentId, 'failed', { failure_code: 'submission_failed' }).catch(
      (refused: unknown) => {
        // Never made processing (or already final): there is nothing to fail.
        if (!(refused instanceof InvalidTransitionError)) throw refused;
      },
    );
    await finishSubmission(ctx.db, paymentId);
    throw error;
  }
  await finishSubmission(ctx.db, paymentId);
}
