import pMap from 'p-map';
import type { AppContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { changePaymentStatus } from '../payments/transitions.ts';
import { withDepositTables } from './depositTables.ts';

type WaitContext = Pick<AppContext, 'db' | 'chains' | 'clock' | 'config'>;

/**
 * A payment made `processing` by a deposit seen above depth whose transfer has not reached depth by its deadline (a
 * reorg took it away, and it was not mined again) fails: `underpaid` when deposits at depth brought part of the
 * amount (refundable), else `transfer_not_mined`. A transfer that reaches depth later is recorded as paid late.
 * Returns how many payments it failed; each is decided on its locked row.
 */
export async function failUnconfirmedDeposits(ctx: WaitContext, limit = 500): Promise<number> {
  const now = ctx.clock.now();
  const due = await withDepositTables(ctx.db)
    .selectFrom('evm_deposit_waits')
    .select('payment_id')
    .where('deadline', '<=', now)
    .orderBy('deadline')
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
            ? { failure_code: 'underpaid', token_value: underpaid.amount, tx_hash: underpaid.txHash }
            : { failure_code: 'transfer_not_mined' },
        );
        return true;
      }),
    { concurrency: 4 },
  );
  return failed.filter(Boolean).length;
}
