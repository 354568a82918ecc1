import { sql, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../../db/database.ts';
import type {
  Database,
  EvmAttemptStatus,
  EvmTransactionAttemptsTable,
  EvmTransactionsTable,
  EvmTransactionStatus,
} from '../../db/schema.ts';
import { CollectorJournalBehindError } from '../collectorJournalBehind.ts';

export type StoredTransaction = Selectable<EvmTransactionsTable>;
export type StoredAttempt = Selectable<EvmTransactionAttemptsTable>;

/** Called inside the transaction that makes a relayed transaction final, with its final row. */
export type OnFinalTransaction = (trx: Transaction<Database>, transaction: StoredTransaction) => Promise<void>;

export interface NewTransaction {
  id: string;
  chain: string;
  from: string;
  to: string;
  data: string;
  value: bigint;
  gas: bigint;
  purpose: string;
  paymentId: string | null;
}

export interface SignedAttempt {
  hash: string;
  rawTransaction: string;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Creates the sender's nonce counter at `startNonce` unless it exists; an existing counter is left as it is. */
export async function ensureNonceCounter(db: Db, chain: string, address: string, startNonce: bigint): Promise<void> {
  await db
    .insertInto('evm_nonces')
    .values({ chain, address: address.toLowerCase(), next_nonce: startNonce })
    .onConflict((conflict) => conflict.columns(['chain', 'address']).doNothing())
    .execute();
}

export async function hasNonceCounter(db: Db, chain: string, address: string): Promise<boolean> {
  return (await nextJournalNonce(db, chain, address)) !== undefined;
}

/** The nonce the sender's next journaled transaction on the chain will take; undefined before its first. */
export async function nextJournalNonce(db: Db, chain: string, address: string): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('evm_nonces')
    .select('next_nonce')
    .where('chain', '=', chain)
    .where('address', '=', address.toLowerCase())
    .executeTakeFirst();
  return row && BigInt(row.next_nonce);
}

/**
 * Moves the sender's nonce counter up to `chainNonce` (never down): the nonces below it were taken by transactions
 * the journal does not hold. Returns the counter's value before; undefined when the sender has none on the chain.
 */
export async function raiseNonceCounter(
  db: Db,
  chain: string,
  address: string,
  chainNonce: bigint,
): Promise<bigint | undefined> {
  return db.transaction().execute(async (trx) => {
    const counter = await trx
      .selectFrom('evm_nonces')
      .select('next_nonce')
      .where('chain', '=', chain)
      .where('address', '=', address.toLowerCase())
      .forUpdate()
      .executeTakeFirst();
    if (!counter) return undefined;
    const before = BigInt(counter.next_nonce);
    if (chainNonce > before)
      await trx
        .updateTable('evm_nonces')
        .set({ next_nonce: chainNonce })
        .where('chain', '=', chain)
        .where('address', '=', address.toLowerCase())
        .execute();
    return before;
  });
}

/** A transaction waiting for its nonce, and how to sign it once it has one. */
export interface NonceClaim {
  transaction: NewTransaction;
  sign: (nonce: bigint) => Promise<SignedAttempt>;
  /** The sender's nonce the node reported (its pending transactions counted) before the counter was read. */
  chainNonce: bigint;
}

/**
 * Reserves the network fee of each transaction stored in one database transaction: called once with it, after the
 * nonce counter's lock (so the batch reads the operator's funding once), it returns what reserves one signed
 * transaction's fee, which throws to refuse it.
 */
export type FeeReservations = (
  trx: Transaction<Database>,
) => Promise<(transaction: NewTransaction, attempt: SignedAttempt) => Promise<void>>;

/**
 * Gives one sender's transactions consecutive nonces, signs each with its own, reserves its network fee and stores
 * them and their signed bytes, all in one database transaction: the counter row stays locked until commit, so
 * concurrent callers in any process get consecutive nonces, and a failure of the whole gives every nonce back. A
 * transaction that cannot be signed, or whose fee cannot be reserved, gets an Error in its place and takes no nonce.
 * One whose sender's nonce on chain was already past the counter gets a `CollectorJournalBehindError`: every
 * transaction of the sender is journaled before it is sent, so the node can count more only for transactions this
 * database does not hold.
 */
export async function recordWithNextNonces(
  db: Db,
  claims: NonceClaim[],
  reserveFees: FeeReservations,
): Promise<({ nonce: bigint; attempt: SignedAttempt } | Error)[]> {
  const first = claims[0];
  if (!first) return [];
  const { chain } = first.transaction;
  const from = first.transaction.from.toLowerCase();
  if (claims.some(({ transaction }) => transaction.chain !== chain || transaction.from.toLowerCase() !== from)) {
    throw new Error('nonces are taken for one sender on one network at a time');
  }
  return db.transaction().execute(async (trx) => {
    const counter = await trx
      .selectFrom('evm_nonces')
      .select('next_nonce')
      .where('chain', '=', chain)
      .where('address', '=', from)
      .forUpdate()
      .executeTakeFirstOrThrow(() => new Error(`no nonce counter for ${from} on ${chain}`));
    const journalNonce = BigInt(counter.next_nonce);
    let next = journalNonce;
    const reserveFee = await reserveFees(trx);
    const results: ({ nonce: bigint; attempt: SignedAttempt } | Error)[] = [];
    const signed: { transaction: NewTransaction; nonce: bigint; attempt: SignedAttempt }[] = [];
    for (const { transaction, sign, chainNonce } of claims) {
      if (chainNonce > journalNonce) {
        results.push(
          new CollectorJournalBehindError(
            chain,
            chainNonce - journalNonce,
            `its nonce there is ${chainNonce}, the journal's next ${journalNonce}`,
          ),
        );
        continue;
      }
      try {
        const attempt = await sign(next);
        await reserveFee(transaction, attempt);
        signed.push({ transaction, nonce: next, attempt });
        results.push({ nonce: next, attempt });
        next += 1n;
      } catch (error) {
        results.push(error instanceof Error ? error : new Error(String(error)));
      }
    }
    if (signed.length === 0) return results;
    await trx
      .insertInto('evm_transactions')
      .values(
        signed.map(({ transaction, nonce }) => ({
          id: transaction.id,
          chain,
          from_address: from,
          nonce,
          to_address: transaction.to.toLowerCase(),
          data: transaction.data,
          value: transaction.value,
          gas: transaction.gas,
          purpose: transaction.purpose,
          payment_id: transaction.paymentId,
        })),
      )
      .execute();
    await trx
      .insertInto('evm_transaction_attempts')
      .values(signed.map(({ transaction, attempt }) => attemptRow(transaction.id, attempt)))
      .execute();
    await trx
      .updateTable('evm_nonces')
      .set({ next_nonce: next })
      .where('chain', '=', chain)
      .where('address', '=', from)
      .execute();
    return results;
  });
}

function attemptRow(transactionId: string, attempt: SignedAttempt) {
  return {
    hash: attempt.hash,
    transaction_id: transactionId,
    raw_transaction: attempt.rawTransaction,
    max_fee_per_gas: attempt.maxFeePerGas,
    max_priority_fee_per_gas: attempt.maxPriorityFeePerGas,
  };
}

/**
 * Stores a fee-bumped replacement, unless another process replaced the transaction first (its newest attempt is
 * then no longer `replacing`). Returns whether it was stored.
 */
export async function recordReplacement(
  db: Db,
  transactionId: string,
  replacing: string,
  attempt: SignedAttempt,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const open = await trx
      .selectFrom('evm_transactions')
      .select('status')
      .where('id', '=', transactionId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (open.status !== 'recorded' && open.status !== 'broadcast') return false;
    const newest = await newestAttempt(trx, transactionId);
    if (newest?.hash !== replacing) return false;
    await trx.insertInto('evm_transaction_attempts').values(attemptRow(transactionId, attempt)).execute();
    return true;
  });
}

export async function findTransaction(db: Db, id: string): Promise<StoredTransaction | undefined> {
  return db.selectFrom('evm_transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

export type OpenTransaction = StoredTransaction & { hashes: string[]; last_broadcast_at: Date | null };

/** A sender's open transactions on a chain with the hash of every signed version and when one was last sent. */
export async function openTransactionsWithHashes(db: Db, chain: string, from: string): Promise<OpenTransaction[]> {
  return db
    .selectFrom('evm_transactions as transaction')
    .innerJoin('evm_transaction_attempts as attempt', 'attempt.transaction_id', 'transaction.id')
    .selectAll('transaction')
    .select([
      sql<string[]>`array_agg(attempt.hash)`.as('hashes'),
      sql<Date | null>`max(attempt.broadcast_at)`.as('last_broadcast_at'),
    ])
    .where('transaction.chain', '=', chain)
    .where('transaction.from_address', '=', from.toLowerCase())
    .where('transaction.status', 'in', ['recorded', 'broadcast'])
    .groupBy('transaction.id')
    .orderBy('transaction.nonce')
    .execute();
}

/** Every signed version of a transaction, oldest first. */
export async function attemptsOf(db: Db, transactionId: string): Promise<StoredAttempt[]> {
  return db
    .selectFrom('evm_transaction_attempts')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('hash')
    .execute();
}

async function newestAttempt(db: Db, transactionId: string): Promise<StoredAttempt | undefined> {
  const attempts = await attemptsOf(db, transactionId);
  return attempts.at(-1);
}

/** Marks attempts as handed to the node; each transaction leaves `recorded` with its first broadcast. One statement. */
export async function markBroadcast(db: Db, sent: { transactionId: string; hash: string }[]): Promise<void> {
  if (sent.length === 0) return;
  await sql`
    WITH sent AS (
      SELECT * FROM unnest(${sent.map((entry) => entry.transactionId)}::text[], ${sent.map((entry) => entry.hash)}::text[]) AS sent(transaction_id, hash)
    ), attempt AS (
      UPDATE evm_transaction_attempts SET status = 'broadcast', broadcast_at = coalesce(broadcast_at, now())
      FROM sent WHERE evm_transaction_attempts.hash = sent.hash AND evm_transaction_attempts.status = 'recorded'
    )
    UPDATE evm_transactions SET status = 'broadcast', updated_at = now()
    FROM sent WHERE evm_transactions.id = sent.transaction_id AND evm_transactions.status = 'recorded'
  `.execute(db);
}

export interface MinedState {
  hash: string;
  blockNumber: bigint;
  blockHash: string;
  /** Final status once deep enough; `broadcast` while it is mined but not yet at the required depth. */
  status: EvmTransactionStatus;
  failureReason: string | null;
  /** Wei paid to the network for it: gas used at its effective price, and an L2's data fee. */
  feePaid: bigint;
}

/**
 * Records which attempt landed, in which block, and whether that is final yet. The others are now replaced. A
 * final state runs `onFinal` in the same transaction.
 */
export async function markMined(
  db: Db,
  transactionId: string,
  mined: MinedState,
  onFinal?: OnFinalTransaction,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('evm_transactions')
      .set({
        status: mined.status,
        mined_hash: mined.hash,
        receipt_block_number: mined.blockNumber,
        receipt_block_hash: mined.blockHash,
        failure_reason: mined.failureReason,
        fee_paid: mined.feePaid,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', transactionId)
      .where('status', 'in', ['recorded', 'broadcast'])
      .returningAll()
      .executeTakeFirst();
    await trx
      .updateTable('evm_transaction_attempts')
      .set({ status: sql<EvmAttemptStatus>`CASE WHEN hash = ${mined.hash} THEN 'mined' ELSE 'replaced' END` })
      .where('transaction_id', '=', transactionId)
      .execute();
    if (updated && updated.status !== 'broadcast') await onFinal?.(trx, updated);
  });
}

/**
 * Makes a mined transaction final once its block is at the network's depth: confirmed, or failed when it reverted.
 * Only while it is still recorded in `blockHash`, so a reorg noticed meanwhile wins. `feePaid`, read from the
 * receipt again for a transaction whose receipt was recorded before the ledger, is stored only where no fee is.
 * Runs `onFinal` in the same transaction.
 */
export async function markIncludedFinal(
  db: Db,
  transactionId: string,
  blockHash: string,
  onFinal?: OnFinalTransaction,
  feePaid?: bigint,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('evm_transactions')
      .set({
        status: sql<EvmTransactionStatus>`CASE WHEN failure_reason IS NULL THEN 'confirmed' ELSE 'failed' END`,
        ...(feePaid === undefined ? {} : { fee_paid: sql<string>`coalesce(fee_paid, ${feePaid.toString()}::numeric)` }),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', transactionId)
      .where('status', '=', 'broadcast')
      .where('receipt_block_hash', '=', blockHash)
      .returningAll()
      .executeTakeFirst();
    if (updated) await onFinal?.(trx, updated);
  });
}

/** The block that held the transaction is no longer canonical: it is pending again and its attempts are live. */
export async function markReorged(db: Db, transactionId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('evm_transactions')
      .set({
        status: 'broadcast',
        mined_hash: null,
        receipt_block_number: null,
        receipt_block_hash: null,
        failure_reason: null,
        fee_paid: null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', transactionId)
      .where('status', 'in', ['recorded', 'broadcast'])
      .execute();
    await trx
      .updateTable('evm_transaction_attempts')
      .set({
        status: sql<'recorded' | 'broadcast'>`CASE WHEN broadcast_at IS NULL THEN 'recorded' ELSE 'broadcast' END`,
      })
      .where('transaction_id', '=', transactionId)
      .where('status', 'in', ['mined', 'replaced'])
      .execute();
  });
}

export async function markFailed(
  db: Db,
  transactionId: string,
  reason: string,
  onFinal?: OnFinalTransaction,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('evm_transactions')
      .set({ status: 'failed', failure_reason: reason, updated_at: sql<Date>`now()` })
      .where('id', '=', transactionId)
      .where('status', 'in', ['recorded', 'broadcast'])
      .returningAll()
      .executeTakeFirst();
    if (updated) await onFinal?.(trx, updated);
  });
}
