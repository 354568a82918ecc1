import type { Selectable, Updateable } from 'kysely';
import type { Namespace } from '../chains/caip.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/database.ts';
import type { Database, PaymentOptionsTable, PaymentStatus, PaymentsTable } from '../db/schema.ts';
import { watchTransaction } from '../chains/evm/watches.ts';
import type { PaymentRow } from '../payments/paymentResource.ts';
import { changePaymentStatus, type TransitionContext } from '../payments/transitions.ts';
import { sql, type Transaction } from 'kysely';
import { ApiError, type Issue } from '../http/errors.ts';
import { buyerFacingStatus } from '../payments/stateMachine.ts';
import type { OptionRow } from './optionLookup.ts';
import { readingChain } from './chainFailures.ts';
import { paymentMethodOf } from '../paymentMethods/registry.ts';
import type { ChainServices } from './chainServices.ts';
import type { WalletResult } from './methods/terms.ts';
import type { ConfirmationCheck } from './methods/paymentMethod.ts';

/** How long a new confirmation is left to the request that confirmed it before any process's sweep takes it. */
const SUBMISSION_GRACE_MS = 5_000;

export interface BuyerProvider {
  name: string | null;
  icon: string | null;
}

/** One result per action of the option, in order, each with one value per wallet call the action stands for. */
export function checkAlignment(option: OptionRow, results: WalletResult[]): void {
  const issues: Issue[] = [];
  if (results.length !== option.actions.length) {
    issues.push({
      field: 'results',
      message: `must hold ${option.actions.length} result(s), one per action of the option, in order`,
    });
  } else {
    results.forEach((result, index) => {
      if (result.data.length !== 1)
        issues.push({ field: `results.${index}.data`, message: 'must hold exactly one value' });
    });
  }
  if (issues.length) throw ApiError.validation(issues, 'The results do not match the actions of the option.');
}

/**
 * Checks the buyer's results against the option's terms and the chain; nothing is written or sent. A failing node
 * is 502 `bad_gateway`: the results may be fine, and the wallet may confirm again.
 */
export function verifyResults(
  services: ChainServices,
  chains: ChainRegistry,
  option: OptionRow,
  results: WalletResult[],
  now: Date,
): Promise<ConfirmationCheck> {
  return readingChain(option.network, () =>
    paymentMethodOf(option.terms).verifyConfirmation(services, chains, option, results, now),
  );
}

function sameResults(stored: unknown, results: WalletResult[]): boolean {
  const normalise = (list: WalletResult[]) => JSON.stringify(list.map((result) => [result.type, result.data]));
  return Array.isArray(stored) && normalise(stored as WalletResult[]) === normalise(results);
}

/** The claim's outcome; a claimed payment comes with its row as the claim left it (`processing`). */
export type ClaimOutcome = { claimed: PaymentRow } | 'repeated' | 'taken' | 'not_payable';

/** Whether this exact confirm was already accepted (`repeated`), another one was (`taken`), or none yet. */
export async function earlierConfirmation(
  ctx: AppContext,
  paymentId: string,
  optionId: string,
  results: WalletResult[],
): Promise<'repeated' | 'taken' | null> {
  const existing = await ctx.db
    .selectFrom('payment_confirmations')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .executeTakeFirst();
  if (!existing) return null;
  return existing.option_id === optionId && sameResults(existing.results, results) ? 'repeated' : 'taken';
}

/**
 * Records the confirmation (its submission due) and makes the payment `processing` in one transaction, under the
 * payment's row lock: of racing confirms exactly one is claimed, and a claimed confirmation is always submitted,
 * even after a restart.
 */
export async function claimPayment(
  ctx: AppContext,
  paymentId: string,
  option: OptionRow,
  results: WalletResult[],
  provider: BuyerProvider,
): Promise<ClaimOutcome> {
  return ctx.db.transaction().execute(async (trx: Transaction<Database>) => {
    const payment = await trx
      .selectFrom('payments')
      .select(['status', 'expires_at', 'exceptions'])
      .where('id', '=', paymentId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const existing = await trx
      .selectFrom('payment_confirmations')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .executeTakeFirst();
    if (existing)
      return existing.option_id === option.id && sameResults(existing.results, results) ? 'repeated' : 'taken';
    if (buyerFacingStatus(payment, ctx.clock.now()) !== 'requires_action') return 'not_payable';
    await paymentMethodOf(option.terms).claim?.(trx, paymentId, option, results);
    await watchBuyerTransaction(ctx, trx, paymentId, option, results);
    await trx
      .insertInto('payment_confirmations')
      .values({
        payment_id: paymentId,
        option_id: option.id,
        results: JSON.stringify(results),
        // The terms just checked: a fetch may rebuild the option's Solana transfer while this confirm runs.
        terms: JSON.stringify(option.terms),
        provider_name: provider.name,
        provider_icon: provider.icon,
        // The confirming request submits it at once; the sweeps take it only if that has not happened by then.
        next_submission_at: sql<Date>`now() + ${SUBMISSION_GRACE_MS} * interval '1 millisecond'`,
      })
      .execute();
    const transition = { db: trx, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now: ctx.clock.now() };
    const { payment: claimed } = await changePaymentStatus(
      transition,
      paymentId,
      'processing',
      processingChanges(ctx.chains, option, provider),
    );
    return { claimed };
  });
}

/**
 * Has the network's follower watch the transaction the buyer sent itself for the option (a native transfer, a
 * Permit2 approval), from now until the deadline; nothing when the option has none or it is watched already.
 */
export async function watchBuyerTransaction(
  ctx: AppContext,
  db: Db,
  paymentId: string,
  option: OptionRow,
  results: WalletResult[],
): Promise<void> {
  const watched = paymentMethodOf(option.terms).buyerTransaction?.(option, results);
  if (!watched) return;
  await watchTransaction(db, {
    chain: option.network,
    txHash: watched.hash,
    paymentId,
    kind: watched.kind,
    notBefore: watched.notBefore,
    deadline: new Date(ctx.clock.now().getTime() + (ctx.chainServices?.buyerTransferDeadlineMs ?? 0)),
  });
}

/** The confirmation a payment accepted, with its option exactly as that confirm checked it. */
export interface AcceptedConfirmation {
  option: OptionRow;
  results: WalletResult[];
  provider: BuyerProvider;
  /** The payment's status when this was read. */
  paymentStatus: PaymentStatus;
}

export async function acceptedConfirmation(db: Db, paymentId: string): Promise<AcceptedConfirmation | undefined> {
  const row = await db
    .selectFrom('payment_confirmations as confirmation')
    .innerJoin('payment_options as option', 'option.id', 'confirmation.option_id')
    .innerJoin('payments as payment', 'payment.id', 'confirmation.payment_id')
    .selectAll('option')
    .select([
      'confirmation.terms as confirmed_terms',
      'confirmation.results',
      'confirmation.provider_name',
      'confirmation.provider_icon',
      'payment.status as payment_status',
    ])
    .where('confirmation.payment_id', '=', paymentId)
    .executeTakeFirst();
  return row && toAccepted(row);
}

function toAccepted(
  row: Selectable<PaymentOptionsTable> & {
    confirmed_terms: unknown;
    results: unknown;
    provider_name: string | null;
    provider_icon: string | null;
    payment_status: PaymentStatus;
  },
): AcceptedConfirmation {
  const { confirmed_terms, results, provider_name, provider_icon, payment_status, ...offered } = row;
  return {
    // Submitted exactly as the accepted confirm checked it: a later fetch may have rebuilt the option's terms.
    option: { ...offered, terms: confirmed_terms } as unknown as OptionRow,
    results: results as WalletResult[],
    provider: { name: provider_name, icon: provider_icon },
    paymentStatus: payment_status,
  };
}

/** A submission taken by `takeSubmission`: the confirmation, and how many times it has been taken. */
export type TakenSubmission = AcceptedConfirmation & { attempt: number };

/**
 * Takes the payment's submission when it is due (or never taken yet): its lease runs `leaseMs` of its option's
 * namespace, during which no other process takes it. Undefined when it is done, leased elsewhere, or waiting out a
 * backoff. One statement.
 */
export async function takeSubmission(
  db: Db,
  paymentId: string,
  leaseMs: Record<Namespace, number>,
): Promise<TakenSubmission | undefined> {
  const optionLeaseMs = sql<number>`CASE WHEN option.network LIKE 'solana:%' THEN ${leaseMs.solana}::integer ELSE ${leaseMs.eip155}::integer END`;
  const row = await db
    .updateTable('payment_confirmations as confirmation')
    .from(['payment_options as option', 'payments as payment'])
    .set((eb) => ({
      next_submission_at: sql<Date>`now() + ${optionLeaseMs} * interval '1 millisecond'`,
      submission_attempts: eb('confirmation.submission_attempts', '+', 1),
    }))
    .whereRef('option.id', '=', 'confirmation.option_id')
    .whereRef('payment.id', '=', 'confirmation.payment_id')
    .where('confirmation.payment_id', '=', paymentId)
    .where('confirmation.submitted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('confirmation.submission_attempts', '=', 0),
        eb('confirmation.next_submission_at', '<=', sql<Date>`now()`),
      ]),
    )
    .returningAll('option')
    .returning([
      'confirmation.terms as confirmed_terms',
      'confirmation.results',
      'confirmation.provider_name',
      'confirmation.provider_icon',
      'confirmation.submission_attempts',
      'payment.status as payment_status',
    ])
    .executeTakeFirst();
  if (!row) return undefined;
  const { submission_attempts, ...accepted } = row;
  return { ...toAccepted(accepted), attempt: submission_attempts };
}

/** The submission did all it can; what is left waits on the chain. */
export async function finishSubmission(db: Db, paymentId: string): Promise<void> {
  await db
    .updateTable('payment_confirmations')
    .set({ submitted_at: sql<Date>`now()` })
    .where('payment_id', '=', paymentId)
    .execute();
}

/** The taken submission failed: it is due again after `delayMs`. */
export async function retrySubmissionAfter(db: Db, paymentId: string, delayMs: number): Promise<void> {
  await db
    .updateTable('payment_confirmations')
    .set({ next_submission_at: sql<Date>`now() + ${delayMs} * interval '1 millisecond'` })
    .where('payment_id', '=', paymentId)
    .where('submitted_at', 'is', null)
    .execute();
}

/** What the submission waited for is there (a Permit2 approval's allowance): it is due again, at once. */
export async function submissionDueAgain(db: Db, paymentId: string): Promise<void> {
  await db
    .updateTable('payment_confirmations')
    .set({ submitted_at: null, submission_attempts: 0, next_submission_at: sql<Date>`now()` })
    .where('payment_id', '=', paymentId)
    .execute();
}

/**
 * Makes the payment `processing` with what its accepted confirmation names, unless it was past that when the
 * confirmation was read. Returns the status it is in; throws InvalidTransitionError when it expired or was cancelled
 * before it could be.
 */
export async function markProcessing(
  context: TransitionContext,
  accepted: AcceptedConfirmation,
  paymentId: string,
): Promise<PaymentStatus> {
  if (accepted.paymentStatus !== 'requires_action') return accepted.paymentStatus;
  const { payment } = await changePaymentStatus(
    context,
    paymentId,
    'processing',
    processingChanges(context.chains, accepted.option, accepted.provider),
  );
  return payment.status;
}

/** What the payment records when it becomes `processing`: the buyer, the wallet app, the token and amount. */
export function processingChanges(
  chains: ChainRegistry,
  option: Pick<OptionRow, 'account' | 'asset' | 'network' | 'amount'>,
  provider: BuyerProvider,
): Omit<Updateable<PaymentsTable>, 'status' | 'id'> {
  return {
    buyer_account: option.account,
    buyer_provider_name: provider.name,
    buyer_provider_icon: provider.icon,
    token_asset: option.asset,
    token_symbol: chains.token(option.asset)?.symbol ?? null,
    network: option.network,
    token_value: option.amount,
  };
}
