import type { PayoutBook } from '../payouts/payout.ts';
import type { TransitionContext } from '../payments/transitions.ts';
import {
  failBatch,
  lockOpenBatch,
  markBatchSent,
  SETTLEMENT_PURPOSE,
  settleBatch,
  settlementsHeld,
} from './batches.ts';

/** How settlement batches are paid from the collector: one batch row per transfer. */
export function batchBook(announcer: () => Omit<TransitionContext, 'db'>): PayoutBook {
  return {
    purpose: SETTLEMENT_PURPOSE,
    held: async (db, batchId) => {
      const batch = await db
        .selectFrom('settlement_batches')
        .select('merchant_id')
        .where('id', '=', batchId)
        .executeTakeFirstOrThrow();
      return settlementsHeld(db, batch.merchant_id);
    },
    lock: async (trx, batchId) => (await lockOpenBatch(trx, batchId)) !== undefined,
    markSent: markBatchSent,
    fail: failBatch,
    // What a batch settled here records with its payments' `payment.settled` events.
    complete: (db, batchId, hash) => settleBatch(db, announcer(), batchId, hash),
  };
}
