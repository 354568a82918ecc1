import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { OPERATOR, postLedgerEntry, UNSOLICITED } from '../ledger/ledger.ts';
import { UserFacingError } from '../userFacingError.ts';

/**
 * The transfers into the collector that no record holds, newest first: what each sender is owed (with `includeKept`,
 * also those kept as funding or sent back).
 */
export function unsolicitedInflows(db: Db, options: { includeKept: boolean }) {
  return db
    .selectFrom('collector_inflows')
    .selectAll()
    .where('outcome', '=', 'unsolicited')
    .$if(!options.includeKept, (query) =>
      query.where('kept_at', 'is', null).where('return_status', 'is distinct from', 'returned'),
    )
    .orderBy('judged_at', 'desc')
    .execute();
}

/** An unsolicited transfer into the collector, locked for the transaction that decides what becomes of it. */
export async function lockUnsolicitedInflow(trx: Transaction<Database>, inflowId: string) {
  const inflow = await trx
    .selectFrom('collector_inflows')
    .selectAll()
    .where('id', '=', inflowId)
    .forUpdate()
    .executeTakeFirst();
  if (!inflow) throw new UserFacingError(`no transfer into the collector ${inflowId}`);
  if (inflow.outcome !== 'unsolicited') {
    throw new UserFacingError(`${inflowId} is ${inflow.outcome ?? 'not judged yet'}, not unsolicited`);
  }
  return inflow;
}

/**
 * The operator keeps an unsolicited transfer as its own funding (the sender agreed, or it was the operator's own
 * top-up): what `unsolicited` owed the sender is the operator's from now on. Once per inflow, under its row lock.
 */
export async function keepUnsolicitedInflow(db: Db, inflowId: string, now: Date) {
  return db.transaction().execute(async (trx) => {
    const inflow = await lockUnsolicitedInflow(trx, inflowId);
    if (inflow.kept_at) return { ...inflow, kept: false };
    if (inflow.return_status === 'pending' || inflow.return_status === 'returned') {
      throw new UserFacingError(
        `${inflowId} is ${inflow.return_status === 'pending' ? 'being sent' : 'sent'} back to its sender`,
      );
    }
    await postLedgerEntry(trx, `inflow_kept:${inflow.id}`, [
      { account: UNSOLICITED, asset: inflow.asset, amount: BigInt(inflow.amount) },
      { account: OPERATOR, asset: inflow.asset, amount: -BigInt(inflow.amount) },
    ]);
    await trx.updateTable('collector_inflows').set({ kept_at: now }).where('id', '=', inflow.id).execute();
    return { ...inflow, kept_at: now, kept: true };
  });
}

/** The unsolicited inflow a transaction hash (spelled as stored) names, if the follower judged one so. */
export function unsolicitedInflowOf(db: Db, hash: string) {
  return db
    .selectFrom('collector_inflows')
    .select('id')
    .where('tx_hash', '=', hash)
    .where('outcome', '=', 'unsolicited')
    .executeTakeFirst();
}
