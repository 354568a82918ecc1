import type { Transaction } from 'kysely';
import { type Namespace, parseChainId } from '../chains/caip.ts';
import { type Db, inTransaction } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { type RepeatingTask, repeatEvery } from '../jobs/repeatEvery.ts';
import { postPayoutDecided, postPayoutSent, postPayoutVoided, UNSOLICITED } from '../ledger/ledger.ts';
import { type Logger, silentLogger } from '../log.ts';
import { payoutSenders } from '../payouts/index.ts';
import type { PayoutBook, PayoutSender, PayoutSenderContext } from '../payouts/payout.ts';
import { UserFacingError } from '../userFacingError.ts';
import { lockUnsolicitedInflow } from './keepInflow.ts';

/** The purpose under which the journals record the transfers that send unsolicited value back. */
export const INFLOW_RETURN_PURPOSE = 'inflow_return';

/** How often every process looks for unsolicited transfers to send back. */
const INFLOW_RETURN_SWEEP_MS = 5_000;

/** Each try of sending an inflow back is a payout of its own: `<inflow id>/<try>`. */
const payoutIdOf = (inflow: { id: string; return_try: number }) => `${inflow.id}/${inflow.return_try}`;

function tryOf(payoutId: string): { id: string; returnTry: number } {
  const slash = payoutId.lastIndexOf('/');
  return { id: payoutId.slice(0, slash), returnTry: Number(payoutId.slice(slash + 1)) };
}

/**
 * The operator asks for an unsolicited transfer to go back to its sender: a new try, paid now out of what
 * `unsolicited` owes the sender (so it is sent once, whatever else the collector holds), sent by the running
 * service's `InflowReturnWorker`. Asking again while a try is on its way, or once it was returned, changes nothing.
 */
export async function askInflowReturn(db: Db, inflowId: string) {
  return inTransaction(db, async (trx) => {
    const inflow = await lockUnsolicitedInflow(trx, inflowId);
    if (inflow.kept_at) throw new UserFacingError(`${inflowId} was kept as the operator's funding`);
    if (inflow.return_status === 'pending' || inflow.return_status === 'returned') return inflow;
    const asked = await trx
      .updateTable('collector_inflows')
      .set({ return_status: 'pending', return_try: inflow.return_try + 1, return_failure: null })
      .where('id', '=', inflowId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await postPayoutDecided(trx, `inflow_return:${payoutIdOf(asked)}`, {
      owner: UNSOLICITED,
      asset: asked.asset,
      amount: BigInt(asked.amount),
    });
    return asked;
  });
}

/** A try ends: sent (the collector paid it) or failed (owed to the sender again). False when it had ended already. */
async function endReturn(
  trx: Transaction<Database>,
  payoutId: string,
  end: { status: 'returned'; hash: string } | { status: 'failed'; reason: string },
): Promise<boolean> {
  const { id, returnTry } = tryOf(payoutId);
  const ended = await trx
    .updateTable('collector_inflows')
    .set(
      end.status === 'returned'
        ? { return_status: 'returned', returned_tx_hash: end.hash }
        : { return_status: 'failed', return_failure: end.reason.slice(0, 1000) },
    )
    .where('id', '=', id)
    .where('return_try', '=', returnTry)
    .where('return_status', '=', 'pending')
    .returning(['asset', 'amount'])
    .executeTakeFirst();
  if (!ended) return false;
  const payout = { owner: UNSOLICITED, asset: ended.asset, amount: BigInt(ended.amount) };
  if (end.status === 'returned') await postPayoutSent(trx, `inflow_return_sent:${payoutId}`, payout);
  else await postPayoutVoided(trx, `inflow_return_voided:${payoutId}`, payout);
  return true;
}

/** How sending unsolicited value back is paid from the collector: one pending try per inflow. */
export function inflowReturnBook(): PayoutBook {
  return {
    purpose: INFLOW_RETURN_PURPOSE,
    // The sender's own money going back: nothing holds it.
    held: async () => false,
    lock: async (trx, payoutId) => {
      const { id, returnTry } = tryOf(payoutId);
      const locked = await trx
        .selectFrom('collector_inflows')
        .select('id')
        .where('id', '=', id)
        .where('return_try', '=', returnTry)
        .where('return_status', '=', 'pending')
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      return locked !== undefined;
    },
    // A try stays pending until its transfer is final; the journal itself says that one was made.
    markSent: async () => {},
    fail: async (trx, payoutId, reason) => {
      await endReturn(trx, payoutId, { status: 'failed', reason });
    },
    complete: (db, payoutId, hash) =>
      inTransaction(db, (trx) => endReturn(trx, payoutId, { status: 'returned', hash })),
  };
}

/**
 * Sends back the unsolicited transfers the operator asked to return: one journaled transfer per try, found by its
 * payout id after a restart, so a crash at any point still gives one transfer. Runs in every process; tries are taken
 * with row locks, and the network's follower ends each once final.
 */
export class InflowReturnWorker {
  private readonly log: Logger;
  private readonly senders: Record<Namespace, PayoutSender>;
  private readonly book = inflowReturnBook();

  constructor(private readonly options: Omit<PayoutSenderContext, 'crashAt'> & { log?: Logger }) {
    this.log = options.log ?? silentLogger;
    this.senders = payoutSenders(options);
  }

  /** The tries driven this round. */
  async runOnce(): Promise<string[]> {
    const pending = await this.options.db
      .selectFrom('collector_inflows')
      .select(['id', 'return_try', 'asset', 'amount', 'sender'])
      .where('return_status', '=', 'pending')
      .orderBy('id')
      .limit(100)
      .execute();
    const driven: string[] = [];
    for (const inflow of pending) {
      const payoutId = payoutIdOf(inflow);
      try {
        const token = this.options.chains.token(inflow.asset);
        const namespace = token && parseChainId(token.chain)?.namespace;
        const sender = namespace && this.senders[namespace];
        if (!token || !sender?.canSend(token)) {
          this.log.warn(`unsolicited transfer ${inflow.id} in ${inflow.asset} cannot be sent back by this process`);
          continue;
        }
        await sender.drive(
          { id: payoutId, destination: inflow.sender, amount: BigInt(inflow.amount) },
          token,
          this.book,
        );
        driven.push(payoutId);
      } catch (error) {
        this.log.warn(`unsolicited transfer ${inflow.id} not sent back yet: ${(error as Error).message}`);
      }
    }
    return driven;
  }

  /** Runs a round now and every few seconds until stopped. */
  runEvery(intervalMs = INFLOW_RETURN_SWEEP_MS): RepeatingTask {
    return repeatEvery(
      () => this.runOnce(),
      intervalMs,
      (error) => this.log.warn(`sending unsolicited transfers back failed: ${error.message}`),
      { stopWaitMs: 5_000 },
    );
  }
}
