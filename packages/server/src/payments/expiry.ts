import type { Task } from 'graphile-worker';
import pMap from 'p-map';
import type { AppContext } from '../context.ts';
import { repeatEvery, type RepeatingTask } from '../jobs/repeatEvery.ts';
import type { Logger } from '../log.ts';
import { inTransaction } from '../db/database.ts';
import { InvalidTransitionError, changePaymentStatus } from './transitions.ts';
import { paidByException } from './paymentExceptions.ts';
import { failUnconfirmedDeposits } from '../deposits/depositWaits.ts';
import type { EvmDepositTables } from '../deposits/depositTables.ts';
import type { SolanaPayTables } from '../chains/solana/solanaPayTables.ts';

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
 * Unpaid payments past their expiry, but for those a follower may still find paid in time: one with a deposit address
 * on a network whose deposit follower has not read every block made before its expiry, or one with a Solana Pay
 * request on a network whose Solana Pay follower has not read every transaction made before it. A transfer in time may
 * be where a follower behind a slow node has not read yet, and the payment waits for it. Networks no longer
 * configured have no follower to wait for.
 */
function duePayments(ctx: ExpiryContext) {
  const followed = (namespace: string) =>
    ctx.chains.networks
      .filter((network) => network.namespace === namespace && network.rpcUrl)
      .map((network) => network.caip2);
  const evm = followed('eip155');
  const solana = followed('solana');
  return ctx.db
    .withTables<EvmDepositTables & SolanaPayTables>()
    .selectFrom('payments')
    .select('id')
    .where('status', '=', 'requires_action')
    .where('expires_at', '<=', ctx.clock.now())
    .$if(evm.length > 0, (query) =>
      query.where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom('evm_deposit_quotes as quote')
              .leftJoin('evm_deposit_cursors as cursor', 'cursor.chain', 'quote.chain')
              .select('quote.payment_id')
              .whereRef('quote.payment_id', '=', 'payments.id')
              .where('quote.chain', 'in', evm)
              .where((unread) =>
                unread.or([
                  unread('cursor.read_through', 'is', null),
                  unread('cursor.read_through', '<', unread.ref('payments.expires_at')),
                ]),
              ),
          ),
        ),
      ),
    )
    .$if(solana.length > 0, (query) =>
      query.where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom('solana_pay_requests as request')
              .leftJoin('solana_pay_read_through as follower', 'follower.network', 'request.network')
              .select('request.payment_id')
              .whereRef('request.payment_id', '=', 'payments.id')
              .where('request.network', 'in', solana)
              .where((unread) =>
                unread.or([
                  unread('follower.read_through', 'is', null),
                  unread('follower.read_through', '<', unread.ref('payments.expires_at')),
                ]),
              ),
          ),
        ),
      ),
    );
}

/**
 * Unpaid payments past their `expiresAt` become expired (with their event and notification), the longest overdue
 * first; returns how many (of `only`, when given). Reads already treat such a payment as expired, so this makes it so
 * for good. One a follower may still find paid waits until its network is read up to its expiry (`duePayments`): the
 * buyer's reads call it expired meanwhile, the merchant's unpaid, and a transfer in time read late still pays it.
 */
export async function expireDuePayments(ctx: ExpiryContext, limit = EXPIRE_PER_PASS, only?: string): Promise<number> {
  const due = await duePayments(ctx)
    .$if(only !== undefined, (query) => query.where('id', '=', only as string))
    .orderBy('expires_at')
    .limit(limit)
    .execute();
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

/**
 * Runs a queued expiry job: the payment expires as the sweep expires it, if it is due. One run early, or waiting for
 * a follower, is left to the sweep, which expires it once due.
 */
export function expirePaymentTask(ctx: ExpiryContext): Task {
  return async (payload) => {
    const { paymentId } = payload as { paymentId: string };
    await expireDuePayments(ctx, 1, paymentId);
  };
}
