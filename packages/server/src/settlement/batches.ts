import { type Selectable, sql, type Transaction } from 'kysely';
import { afterCommit } from '../db/afterCommit.ts';
import { type Db, inTransaction } from '../db/database.ts';
import { logDomainEvent } from '../log.ts';
import type { Database, SettlementBatchesTable } from '../db/schema.ts';
import { announcePayment, type TransitionContext } from '../payments/transitions.ts';
import { nextUlid } from '../ids.ts';
import { pendingRefundsOf, refundDebt } from '../refunds/refundDebt.ts';
import {
  InsufficientBalanceError,
  merchantAccount,
  postPayoutDecided,
  postPayoutSent,
  postPayoutVoided,
} from '../ledger/ledger.ts';

export type BatchRow = Selectable<SettlementBatchesTable>;

/** The purpose under which the chain layer's journals record settlement transfers, referenced by batch id. */
export const SETTLEMENT_PURPOSE = 'settlement';

function newBatchId(): string {
  return `stb_${nextUlid()}`;
}

/**
 * Whether an operator holds the merchant's settlements: an inactive or suspended merchant is paid nothing until it
 * is active again. A merchant its partner deleted is still paid what it is owed, to its destinations. The row is
 * share-locked until the caller's transaction ends, so a status change waits for a transfer decided under it, and
 * once the change commits no further transfer is made.
 */
export async function settlementsHeld(db: Db, merchantId: string): Promise<boolean> {
  const merchant = await db
    .selectFrom('merchants')
    .select('status')
    .where('id', '=', merchantId)
    .forShare()
    .executeTakeFirst();
  return merchant?.status !== 'active';
}

/**
 * Payments waiting for settlement whose merchant has a destination for their asset and is not held, summed per
 * (merchant, asset).
 */
export async function unsettledGroups(
  db: Db,
): Promise<{ merchantId: string; asset: string; destination: string; amount: bigint }[]> {
  const rows = await db
    .selectFrom('payments as payment')
    .innerJoin('crypto_settlements as destination', (join) =>
      join
        .onRef('destination.merchant_id', '=', 'payment.merchant_id')
        .onRef('destination.asset', '=', 'payment.token_asset'),
    )
    .innerJoin('merchants as merchant', 'merchant.id', 'payment.merchant_id')
    .where('merchant.status', '=', 'active')
    .select([
      'payment.merchant_id',
      'payment.token_asset',
      'destination.destination',
      sql<string>`sum(payment.settlement_amount)::text`.as('amount'),
    ])
    .where('payment.status', '=', 'succeeded')
    .where('payment.settlement_batch_id', 'is', null)
    .where('payment.settled_at', 'is', null)
    .where(sql<boolean>`payment.settlement_amount > 0`)
    .groupBy(['payment.merchant_id', 'payment.token_asset', 'destination.destination'])
    .orderBy('payment.merchant_id')
    .execute();
  return rows.map((row) => ({
    merchantId: row.merchant_id,
    asset: row.token_asset as string,
    destination: row.destination,
    amount: BigInt(row.amount),
  }));
}

/** What the asset's batches not settled yet will take from the collector. */
export async function batchesInFlight(db: Db, asset: string): Promise<bigint> {
  const open = await db
    .selectFrom('settlement_batches')
    .select(sql<string>`coalesce(sum(amount), 0)::text`.as('amount'))
    .where('asset', '=', asset)
    .where('status', 'in', ['claimed', 'sent'])
    .executeTakeFirstOrThrow();
  return BigInt(open.amount);
}

export type ClaimOutcome =
  | { kind: 'claimed'; batchId: string; amount: bigint }
  | { kind: 'short'; needed: bigint }
  | { kind: 'nothing' };

/**
 * Claims a merchant's unsettled payments in one asset into a new batch, in one transaction: the batch (amount,
 * destination as it is now) and its payments are written together, or nothing is. Refused when the collector's
 * balance `held` does not cover this batch plus the asset's batches not yet settled and its refunds not yet sent;
 * nothing while the merchant's settlements are held. The batch pays what the payments owe less the merchant's
 * on-chain refunds not yet deducted (`refunds_deducted`), taken from the merchant's ledger account in the same
 * transaction: never more than that account holds.
 */
export async function claimBatch(
  db: Db,
  request: { merchantId: string; asset: string; network: string; held: bigint; now: Date },
): Promise<ClaimOutcome> {
  return db
    .transaction()
    .execute((trx) => claimBatchIn(trx, request))
    .catch((error: unknown) => {
      // The merchant's balance no longer covers the batch (a refund made since its debt was read): nothing is claimed.
      if (error instanceof InsufficientBalanceError) return { kind: 'nothing' } as const;
      throw error;
    });
}

async function claimBatchIn(
  trx: Transaction<Database>,
  request: { merchantId: string; asset: string; network: string; held: bigint; now: Date },
): Promise<ClaimOutcome> {
  // One claim per asset at a time across processes, so each sees the batches the others made before checking
  // them against the collector's balance.
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`settlement:${request.asset}`}))`.execute(trx);
  if (await settlementsHeld(trx, request.merchantId)) return { kind: 'nothing' } as const;
  const destination = await trx
    .selectFrom('crypto_settlements')
    .select('destination')
    .where('merchant_id', '=', request.merchantId)
    .where('asset', '=', request.asset)
    .executeTakeFirst();
  if (!destination) return { kind: 'nothing' } as const;
  const payments = await trx
    .selectFrom('payments')
    .select(['id', 'settlement_amount'])
    .where('merchant_id', '=', request.merchantId)
    .where('token_asset', '=', request.asset)
    .where('status', '=', 'succeeded')
    .where('settlement_batch_id', 'is', null)
    .where('settled_at', 'is', null)
    .where(sql<boolean>`settlement_amount > 0`)
    .orderBy('id')
    .forUpdate()
    .skipLocked()
    .execute();
  if (!payments.length) return { kind: 'nothing' } as const;
  const owed = payments.reduce((sum, payment) => sum + BigInt(payment.settlement_amount as string), 0n);
  // What the service sent back on chain for the merchant is taken from what it is owed in the asset; while the
  // refunds are as much or more, nothing is owed and the payments wait for later ones.
  const debt = await refundDebt(trx, request.merchantId, request.asset);
  if (owed <= debt) return { kind: 'nothing' } as const;
  const refundsDeducted = debt > 0n ? debt : 0n;
  const amount = owed - refundsDeducted;
  // Refunds waiting to be sent count on the collector's balance too.
  const needed = amount + (await batchesInFlight(trx, request.asset)) + (await pendingRefundsOf(trx, request.asset));
  if (needed > request.held) return { kind: 'short', needed } as const;

  const batchId = newBatchId();
  await postPayoutDecided(trx, `settlement:${batchId}`, {
    owner: merchantAccount(request.merchantId),
    asset: request.asset,
    amount,
  });
  await trx
    .insertInto('settlement_batches')
    .values({
      id: batchId,
      merchant_id: request.merchantId,
      asset: request.asset,
      network: request.network,
      destination: destination.destination,
      amount,
      refunds_deducted: refundsDeducted,
      created_at: request.now,
      updated_at: request.now,
    })
    .execute();
  await trx
    .insertInto('settlement_batch_payments')
    .values(
      payments.map((payment) => ({
        batch_id: batchId,
        payment_id: payment.id,
        amount: payment.settlement_amount as string,
      })),
    )
    .execute();
  await trx
    .updateTable('payments')
    .set({ settlement_batch_id: batchId })
    .where(
      'id',
      'in',
      payments.map((payment) => payment.id),
    )
    .execute();
  return { kind: 'claimed', batchId, amount } as const;
}

/** Batches whose transfer is not final yet, oldest first. */
export function openBatches(db: Db): Promise<BatchRow[]> {
  return db
    .selectFrom('settlement_batches')
    .selectAll()
    .where('status', 'in', ['claimed', 'sent'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Locks an open batch for the caller's transaction; another process already working on it is skipped. */
export function lockOpenBatch(trx: Transaction<Database>, batchId: string): Promise<BatchRow | undefined> {
  return trx
    .selectFrom('settlement_batches')
    .selectAll()
    .where('id', '=', batchId)
    .where('status', 'in', ['claimed', 'sent'])
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** The `info` line of a batch's event, once the transaction that records it commits. */
function logBatchEvent(
  trx: Transaction<Database>,
  event: 'settlement.sent' | 'settlement.confirmed' | 'settlement.failed',
  batch: Pick<BatchRow, 'id' | 'merchant_id' | 'asset' | 'network' | 'amount' | 'tx_hash'>,
  extra: Record<string, string | number> = {},
): Promise<void> {
  return afterCommit(trx, () =>
    logDomainEvent(event, {
      batchId: batch.id,
      merchantId: batch.merchant_id,
      asset: batch.asset,
      network: batch.network,
      amount: batch.amount,
      txHash: batch.tx_hash,
      ...extra,
    }),
  );
}

const LOGGED_BATCH_COLUMNS = ['id', 'merchant_id', 'asset', 'network', 'amount', 'tx_hash'] as const;

export async function markBatchSent(trx: Transaction<Database>, batchId: string, now: Date): Promise<void> {
  const sent = await trx
    .updateTable('settlement_batches')
    .set({ status: 'sent', updated_at: now })
    .where('id', '=', batchId)
    .where('status', '=', 'claimed')
    .returning(LOGGED_BATCH_COLUMNS)
    .executeTakeFirst();
  if (sent) await logBatchEvent(trx, 'settlement.sent', sent);
}

/**
 * The batch's transfer is confirmed: the batch and every payment in it are settled with its hash, and a
 * `payment.settled` event is recorded per payment, in one transaction. Returns false when it was settled already.
 */
export async function settleBatch(
  db: Db,
  context: Omit<TransitionContext, 'db'>,
  batchId: string,
  txHash: string,
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const batch = await trx
      .selectFrom('settlement_batches')
      .select('id')
      .where('id', '=', batchId)
      .where('status', '=', 'sent')
      .forUpdate()
      .executeTakeFirst();
    if (!batch) return false;
    const confirmed = await trx
      .updateTable('settlement_batches')
      .set({ status: 'confirmed', tx_hash: txHash, completed_at: context.now, updated_at: context.now })
      .where('id', '=', batchId)
      .returning(LOGGED_BATCH_COLUMNS)
      .executeTakeFirstOrThrow();
    await postPayoutSent(trx, `settlement_sent:${batchId}`, {
      asset: confirmed.asset,
      amount: BigInt(confirmed.amount),
    });
    const payments = await trx
      .updateTable('payments')
      .set({ settlement_tx_hash: txHash, settled_at: context.now, updated_at: context.now })
      .where('settlement_batch_id', '=', batchId)
      .where('settled_at', 'is', null)
      .returningAll()
      .execute();
    payments.sort((a, b) => a.id.localeCompare(b.id));
    for (const payment of payments) await announcePayment(trx, context, payment, 'payment.settled');
    await logBatchEvent(trx, 'settlement.confirmed', confirmed, { payments: payments.length });
    return true;
  });
}

/** The batch's transfer cannot land: its payments are released to a later batch (nothing left the collector). */
export async function failBatch(trx: Transaction<Database>, batchId: string, reason: string, now: Date): Promise<void> {
  const failed = await trx
    .updateTable('settlement_batches')
    .set({ status: 'failed', failure_reason: reason.slice(0, 1000), completed_at: now, updated_at: now })
    .where('id', '=', batchId)
    .where('status', 'in', ['claimed', 'sent'])
    .returning(LOGGED_BATCH_COLUMNS)
    .executeTakeFirst();
  if (failed) {
    await postPayoutVoided(trx, `settlement_voided:${batchId}`, {
      owner: merchantAccount(failed.merchant_id),
      asset: failed.asset,
      amount: BigInt(failed.amount),
    });
    await logBatchEvent(trx, 'settlement.failed', failed);
  }
  await trx
    .updateTable('payments')
    .set({ settlement_batch_id: null })
    .where('settlement_batch_id', '=', batchId)
    .execute();
}

export async function recordShortfall(db: Db, asset: string, needed: bigint, held: bigint): Promise<void> {
  await db
    .insertInto('settlement_shortfalls')
    .values({ asset, needed, held })
    .onConflict((conflict) => conflict.column('asset').doUpdateSet({ needed, held, observed_at: sql<Date>`now()` }))
    .execute();
}

/** Forgets the shortfalls of every asset except those still short. */
export async function clearShortfalls(db: Db, stillShort: string[]): Promise<void> {
  let query = db.deleteFrom('settlement_shortfalls');
  if (stillShort.length) query = query.where('asset', 'not in', stillShort);
  await query.execute();
}

export async function shortfalls(db: Db): Promise<{ asset: string; needed: bigint; held: bigint }[]> {
  const rows = await db.selectFrom('settlement_shortfalls').selectAll().execute();
  return rows.map((row) => ({ asset: row.asset, needed: BigInt(row.needed), held: BigInt(row.held) }));
}
