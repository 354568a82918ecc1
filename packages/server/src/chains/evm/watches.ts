import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ChainWatchesTable, ChainWatchKind } from '../../db/schema.ts';
import type { TransferOutcomeHandler } from '../transferOutcomes.ts';

export type ChainWatch = Selectable<ChainWatchesTable>;

/** The failure reason of a watched transfer in a block older than the option it was made for. */
export const MINED_BEFORE_OPTION = 'mined_before_option';

export interface NewChainWatch {
  chain: string;
  txHash: string;
  paymentId: string;
  kind: ChainWatchKind;
  notBefore: Date;
  deadline: Date;
}

/** Starts watching a buyer's transaction for a payment; pass the transaction that records the payment's confirmation. */
export async function watchTransaction(db: Db, watch: NewChainWatch): Promise<void> {
  await db
    .insertInto('chain_watches')
    .values({
      chain: watch.chain,
      tx_hash: watch.txHash.toLowerCase(),
      payment_id: watch.paymentId,
      kind: watch.kind,
      not_before: watch.notBefore,
      deadline: watch.deadline,
    })
    .onConflict((conflict) => conflict.columns(['chain', 'tx_hash', 'payment_id']).doNothing())
    .execute();
}

export function openWatches(db: Db, chain: string): Promise<ChainWatch[]> {
  return db
    .selectFrom('chain_watches')
    .selectAll()
    .where('chain', '=', chain)
    .where('status', '=', 'pending')
    .execute();
}

/** The watched transaction is in a block (not yet deep enough); `failureReason` when it reverted or cannot count. */
export async function recordWatchInclusion(
  db: Db,
  watch: ChainWatch,
  block: { number: bigint; hash: string },
  failureReason: string | null,
): Promise<void> {
  await db
    .updateTable('chain_watches')
    .set({
      block_number: block.number,
      block_hash: block.hash,
      failure_reason: failureReason,
      updated_at: sql<Date>`now()`,
    })
    .where('chain', '=', watch.chain)
    .where('tx_hash', '=', watch.tx_hash)
    .where('payment_id', '=', watch.payment_id)
    .where('status', '=', 'pending')
    .execute();
}

/** The block that held the watched transaction left the canonical chain: it is looked for again. */
export async function clearWatchInclusion(db: Db, watch: ChainWatch): Promise<void> {
  await db
    .updateTable('chain_watches')
    .set({ block_number: null, block_hash: null, failure_reason: null, updated_at: sql<Date>`now()` })
    .where('chain', '=', watch.chain)
    .where('tx_hash', '=', watch.tx_hash)
    .where('payment_id', '=', watch.payment_id)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Ends a watch: `confirmed` or `failed` at depth (still in the block it was recorded in, so a reorg noticed
 * meanwhile wins), or `expired` at its deadline while in no block. Runs `onFinal` in the same transaction.
 */
export async function finishWatch(
  db: Db,
  watch: ChainWatch,
  end: { status: 'confirmed' | 'failed' | 'expired'; reason: string | null },
  onFinal: TransferOutcomeHandler,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    let update = trx
      .updateTable('chain_watches')
      .set({ status: end.status, failure_reason: end.reason, updated_at: sql<Date>`now()` })
      .where('chain', '=', watch.chain)
      .where('tx_hash', '=', watch.tx_hash)
      .where('payment_id', '=', watch.payment_id)
      .where('status', '=', 'pending');
    update =
      end.status === 'expired'
        ? update.where('block_hash', 'is', null)
        : update.where('block_hash', '=', watch.block_hash);
    const ended = await update.returningAll().executeTakeFirst();
    if (!ended) return;
    await onFinal(trx, {
      chain: ended.chain,
      purpose: ended.kind,
      reference: ended.payment_id,
      status: end.status,
      hash: ended.tx_hash,
      nonce: null,
      reason: end.reason,
    });
  });
}
