import pMap from 'p-map';
import type { AppContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { paidByException } from '../payments/paymentExceptions.ts';
import { changePaymentStatus } from '../payments/transitions.ts';
import { withDepositTables } from './depositTables.ts';

type WaitContext = Pick<AppContext, 'db' | 'chains' | 'clock' | 'config'>;

/**
 * A payment made `processing` by a deposit seen above depth whose transfer the follower has not found at depth by
 * its deadline, though it read past the transfer's block there (a reorg took it away, and it was not mined again),
 * fails: `underpaid` when deposits at depth brought part of the amount (refundable), else `transfer_not_mined`. A
 * follower behind (a node down) holds the payment as it is. A transfer that reaches depth later is recorded as paid
 * late. Returns how many payments it failed; each is decided on its locked row.
 */
export async function failUnconfirmedDeposits(ctx: WaitContext, limit = 500): Promise<number> {
  const now = ctx.clock.now();
  const due = await withDepositTables(ctx.db)
    .selectFrom('evm_deposit_waits as wait')
    .innerJoin('evm_deposit_cursors as cursor', 'cursor.chain', 'wait.chain')
    .select('wait.payment_id')
    .where('wait.deadline', '<=', now)
    .whereRef('cursor.next_block', '>', 'wait.block_number')
    .orderBy('wait.deadline')
    .limit(limit)
    .execute();
  const failed = await pMap(
    due,
    ({ payment_id: paymentId }) =>
      inTransaction(ctx.db, async (trx) => {
        const payment = await trx
          .selectFrom('payments')
          .select(['status', 'exceptions'])
          .where('id', '=', paymentId)
          .forUpdate()
          .executeTakeFirstOrThrow();
        const gone = await withDepositTables(trx)
          .deleteFrom('evm_deposit_waits')
          .where('payment_id', '=', paymentId)
          .where('deadline', '<=', now)
          .executeTakeFirst();
        if (payment.status !== 'processing' || gone.numDeletedRows === 0n) return false;
        const underpaid = payment.exceptions.find((exception) => exception.type === 'underpaid');
        const transition = { db: trx, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now };
        await changePaymentStatus(
          transition,
          paymentId,
          'failed',
          underpaid
            ? { ...paidByException(ctx.chains, underpaid), failure_code: 'underpaid', tx_hash: underpaid.txHash }
            : { failure_code: 'transfer_not_mined' },
        );
        return true;
      }),
    { concurrency: 4 },
  );
  return failed.filter(Boolean).length;
}
