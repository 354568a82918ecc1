import type { Task } from 'graphile-worker';
import pMap from 'p-map';
import type { AppContext } from '../context.ts';
import { repeatEvery, type RepeatingTask } from '../jobs/repeatEvery.ts';
import type { Logger } from '../log.ts';
import { inTransaction } from '../db/database.ts';
import { InvalidTransitionError, changePaymentStatus } from './transitions.ts';
import { paidByException } from './paymentExceptions.ts';
import { failUnconfirmedDeposits } from '../deposits/depositWaits.ts';
import { withDepositTables } from '../deposits/depositTables.ts';

/** The task of the expiry jobs earlier versions queued, one per payment; those still queued run as before. */
export const EXPIRE_PAYMENT_TASK = 'expire_payment';

/** Payments expired per pass; a pass that expires this many starts the next one at once. */
const EXPIRE_PER_PASS = 500;

type ExpiryContext = Pick<AppContext, 'db' | 'chains' | 'clock' | 'config'>;

/**
 * An unpaid payment past its expiry becomes expired, or, when a deposit brought less than asked, failed `underpaid`
 * with what it received (`exceptions` keeps the amounts). Decided on the locked row, so a deposit recorded
 * meanwhile is never missed.
 */
async function expire(ctx: ExpiryContext, paymentId: string): Promise<boolean> {
  try {
    await inTransaction(ctx.db, async (trx) => {
      const { exceptions } = await trx
        .selectFrom('payments')
        .select('exceptions')
        .where('id', '=', paymentId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const transition = { db: trx, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now: ctx.clock.now() };
      const underpaid = exceptions.find((exception) => exception.type === 'underpaid');
      if (!underpaid) {
        await changePaymentStatus(transition, paymentId, 'expired');
        return;
      }
      await changePaymentStatus(transition, paymentId, 'processing', paidByException(ctx.chains, underpaid));
      await changePaymentStatus(transition, paymentId, 'failed', {
        failure_code: 'underpaid',
        tx_hash: underpaid.txHash,
      });
    });
    return true;
  } catch (error) {
    // Paid, cancelled or expired by another process meanwhile.
    if (error instanceof InvalidTransitionError) return false;
    throw error;
  }
}

/**
 * Unpaid payments past their expiry, but for those with a deposit address on a network whose deposit follower has
 * not read every block made before it yet: a transfer in time may be in a block it has not read (it fell behind a
 * slow node), and the payment waits for it. Networks no longer configured have no follower to wait for.
 */
function duePayments(ctx: ExpiryContext) {
  const followed = ctx.chains.networks
    .filter((network) => network.namespace === 'eip155' && network.rpcUrl)
    .map((network) => network.caip2);
  return withDepositTables(ctx.db)
    .selectFrom('payments')
    .select('id')
    .where('status', '=', 'requires_action')
    .where('expires_at', '<=', ctx.clock.now())
    .$if(followed.length > 0, (query) =>
      query.where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom('evm_deposit_quotes as quote')
              .leftJoin('evm_deposit_cursors as cursor', 'cursor.chain', 'quote.chain')
              .select('quote.payment_id')
              .whereRef('quote.payment_id', '=', 'payments.id')
              .where('quote.chain', 'in', followed)
              .where((unread) =>
                unread.or([
                  unread('cursor.read_through', 'is', null),
                  unread('cursor.read_through', '<', unread.ref('payments.expires_at')),
                ]),
              ),
          ),
        ),
      ),
    );
}

/**
 * Unpaid payments past their `expiresAt` become expired (with their event and notification), the longest overdue
 * first; returns how many. Reads already treat such a payment as expired, so this makes it so for good. One with a
 * deposit address waits until its network's deposits are read up to its expiry (`duePayments`): reads call it
 * expired meanwhile, though a transfer in time read late still pays it.
 */
export async function expireDuePayments(ctx: ExpiryContext, limit = EXPIRE_PER_PASS): Promise<number> {
  const due = await duePayments(ctx).orderBy('expires_at').limit(limit).execute();
  const expired = await pMap(due, ({ id }) => expire(ctx, id), { concurrency: 4 });
  return expired.filter(Boolean).length;
}

/**
 * Expires due payments every `intervalMs` in this process, and fails those whose deposit seen above depth did not
 * reach it by its deadline. One sweep over an index of the unpaid payments replaces a job per payment, which cost
 * each create a job insert and the workers' wake-ups; every process may sweep at once.
 */
export function expireDuePaymentsEvery(ctx: ExpiryContext, intervalMs: number, log: Logger): RepeatingTask {
  const sweeps: RepeatingTask = repeatEvery(
    async () => {
      const expired = await expireDuePayments(ctx);
      const failed = await failUnconfirmedDeposits(ctx, EXPIRE_PER_PASS);
      if (expired === EXPIRE_PER_PASS || failed === EXPIRE_PER_PASS) sweeps.soon();
    },
    intervalMs,
    (error) => log.warn(`expiring due payments failed: ${error.message}`),
  );
  return sweeps;
}

/** Runs a queued expiry job: an unpaid payment past its expiry becomes expired; one run early is retried later. */
export function expirePaymentTask(ctx: ExpiryContext): Task {
  return async (payload) => {
    const { paymentId } = payload as { paymentId: string };
    const payment = await ctx.db
      .selectFrom('payments')
      .select(['status', 'expires_at'])
      .where('id', '=', paymentId)
      .executeTakeFirst();
    if (payment?.status !== 'requires_action') return;
    if (ctx.clock.now() < payment.expires_at)
      throw new Error(`payment ${paymentId} expires at ${payment.expires_at.toISOString()}, not yet`);
    await expire(ctx, paymentId);
  };
}
