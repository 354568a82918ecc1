import { sql, type Transaction } from 'kysely';
import { parseChainId } from '../chains/caip.ts';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { recordStrayDeposit } from '../chains/solana/x402MerchantAccounts.ts';
import { COLLECTOR, DEPOSIT_ADDRESSES, postLedgerEntry, UNSOLICITED } from '../ledger/ledger.ts';

/** Inflows judged per transaction: a burst of spam transfers is worked through a batch at a time. */
const INFLOWS_PER_BATCH = 100;

/**
 * Whether one of the service's records holds a transfer into the collector of an EVM network: a transaction the
 * collector sent itself (a relayed payment, a sweep, an x402 settle), a native transfer a confirm claimed (the only
 * payment a buyer's own transaction makes), a refused transfer, the operator's funding or a late transfer named by
 * its hash. Each looked up by a key (hashes are stored in lower case), the commonest first: most inflows are the
 * collector's own relays.
 */
function recordedEvmTransfer(trx: Transaction<Database>, chain: string, hash: string) {
  return sql<{ recorded: boolean }>`
    SELECT EXISTS (SELECT 1 FROM evm_transaction_attempts WHERE hash = ${hash})
        OR EXISTS (SELECT 1 FROM evm_used_transfers WHERE chain = ${chain} AND tx_hash = ${hash})
        OR EXISTS (SELECT 1 FROM refused_transfers WHERE chain = ${chain} AND tx_hash = ${hash})
        OR EXISTS (SELECT 1 FROM ledger_entries WHERE entry IN (${`funding:${hash}`}, ${`late_transfer:${hash}`}))
      AS recorded
  `.execute(trx);
}

/**
 * Whether one of the service's records holds a transfer into the collector of a Solana network: a transaction it
 * sent or co-signed through its journal (a gateway payment, an x402 settle), a Solana Pay transfer recorded against
 * its request (paid, or a payment exception), or the operator's funding, by signature.
 */
function recordedSolanaTransfer(trx: Transaction<Database>, signature: string) {
  return sql<{ recorded: boolean }>`
    SELECT EXISTS (SELECT 1 FROM solana_transactions WHERE signature = ${signature})
        OR EXISTS (SELECT 1 FROM solana_pay_transfers WHERE signature = ${signature})
        OR EXISTS (SELECT 1 FROM ledger_entries WHERE entry IN (${`funding:${signature}`}, ${`late_transfer:${signature}`}))
      AS recorded
  `.execute(trx);
}

/** A native EVM transfer no record holds is claimed, so that no confirm can pay a payment with it afterwards. */
async function claimNativeTransfer(trx: Transaction<Database>, inflow: { id: string; chain: string; tx_hash: string }) {
  const claimed = await trx
    .insertInto('evm_used_transfers')
    .values({ chain: inflow.chain, tx_hash: inflow.tx_hash, payment_id: `inflow:${inflow.id}` })
    .onConflict((conflict) => conflict.columns(['chain', 'tx_hash']).doNothing())
    .returning('tx_hash')
    .executeTakeFirst();
  return claimed !== undefined;
}

/**
 * Judges the transfers into the collector of `chain` found at least `graceMs` ago (time for a confirm naming a
 * buyer's own transaction to claim it): held by a record of the service, or unsolicited. An unsolicited transfer is
 * entered in the ledger as owed to its sender (`unsolicited`). Rows are taken with `SKIP LOCKED`, so processes judge each one once.
 */
export async function judgeCollectorInflows(db: Db, chain: string, graceMs: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const inflows = await trx
      .selectFrom('collector_inflows')
      .selectAll()
      .where('chain', '=', chain)
      .where('outcome', 'is', null)
      // The database's clock, which stamped `found_at`.
      .where('found_at', '<=', sql<Date>`now() - make_interval(secs => ${graceMs / 1000})`)
      .orderBy('found_at')
      .limit(INFLOWS_PER_BATCH)
      .forUpdate()
      .skipLocked()
      .execute();
    const onSolana = parseChainId(chain)?.namespace === 'solana';
    for (const inflow of inflows) {
      let recorded = onSolana
        ? ((await recordedSolanaTransfer(trx, inflow.tx_hash)).rows[0]?.recorded ?? false)
        : ((await recordedEvmTransfer(trx, chain, inflow.tx_hash)).rows[0]?.recorded ?? false);
      if (!recorded && !onSolana && inflow.log_index < 0) recorded = !(await claimNativeTransfer(trx, inflow));
      await trx
        .updateTable('collector_inflows')
        .set({ outcome: recorded ? 'recorded' : 'unsolicited', judged_at: sql`now()` })
        .where('id', '=', inflow.id)
        .execute();
      if (recorded) continue;
      // What reached a merchant's x402 token account stays there until that account's sweep.
      if (inflow.to_account) await recordStrayDeposit(trx, { ...inflow, to_account: inflow.to_account });
      const heldAt = inflow.to_account ? DEPOSIT_ADDRESSES : COLLECTOR;
      await postLedgerEntry(trx, `inflow:${inflow.id}`, [
        { account: heldAt, asset: inflow.asset, amount: BigInt(inflow.amount) },
        { account: UNSOLICITED, asset: inflow.asset, amount: -BigInt(inflow.amount) },
      ]);
    }
    return inflows.length;
  });
}
