import { type RawBuilder, sql, type Transaction } from 'kysely';
import {
  type Address,
  BaseError,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  pad,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { type Db, inTransaction } from '../../../db/database.ts';
import type { Database } from '../../../db/schema.ts';
import { postDepositsSwept, postUnattributed } from '../../../ledger/ledger.ts';
import { TRANSFER_TOPIC } from './depositScanner.ts';
import { NATIVE_TOKEN } from './nativeTransfers.ts';
import { withDepositTables } from '../../../deposits/depositTables.ts';
import type { Logger } from '../../../log.ts';
import type { NetworkInfo } from '../../registry.ts';
import type { Relayer } from '../relayer.ts';
import {
  DETERMINISTIC_DEPLOYER,
  depositAddress,
  depositFactoryAddress,
  depositSalt,
  merchantDepositAddress,
  merchantDepositSalt,
} from './addresses.ts';
import { depositFactoryAbi } from './contracts.ts';
import { DEPOSIT_FACTORY_PURPOSE, factoryDeployment, hasCode } from './factory.ts';
import { type CallFrame, nativeCredits } from './nativeCredits.ts';

export const DEPOSIT_SWEEP_PURPOSE = 'deposit_sweep';

/** A sweep of a token the network does not list, asked for by the operator (`paygate deposits recover`). */
export const DEPOSIT_RECOVERY_PURPOSE = 'deposit_recovery';

/**
 * Gas of a sweep: the forwarder's creation (about 90,000) and call overhead, then a balance read and transfer per
 * token (about 40,000 for USDC; more for a cold recipient). Given, not estimated: the first sweeps on a network are
 * recorded before the factory they call is mined.
 */
function sweepGas(tokens: number): bigint {
  return 200_000n + 80_000n * BigInt(tokens);
}

/** Addresses swept per step, so one step stays short however many deposits arrived at once. */
const SWEEPS_PER_STEP = 20;

/** Sweeps of one address that may fail before it is left to the operator, so a failing one never burns gas forever. */
export const MAX_FAILED_SWEEPS = 3;

/** A payment's later deposits (after it closed) are swept at most this often, so dust sent to it costs little gas. */
const SWEEP_SPACING = '1 hour';

/**
 * Whose a deposit address is: a payment's (its deposit address) or a merchant's own (its x402 `payTo`). A sweep's
 * journal row names it (`payment_id`: the payment's or the merchant's id).
 */
export type AddressOwner = { kind: 'payment' | 'merchant'; id: string };

/** The id of the deposit's address's owner, in SQL: the merchant of a merchant's own address, else the payment. */
const OWNER_OF_DEPOSIT = sql`coalesce(deposit.address_merchant_id, deposit.payment_id)`;

const saltOf = (owner: AddressOwner) =>
  owner.kind === 'merchant' ? merchantDepositSalt(owner.id) : depositSalt(owner.id);

/** Whose address an operator's recovery request empties: a merchant's own, or a payment's. */
const recoveryOwner = (recovery: { payment_id: string | null; merchant_id: string | null }): AddressOwner =>
  recovery.merchant_id === null
    ? { kind: 'payment', id: recovery.payment_id as string }
    : { kind: 'merchant', id: recovery.merchant_id };

const addressOf = (collector: Address, owner: AddressOwner) =>
  owner.kind === 'merchant' ? merchantDepositAddress(collector, owner.id) : depositAddress(collector, owner.id);

/**
 * A sweep's calldata names the token (`0x` address, lower case) as one of its 32-byte words: matched on a word boundary,
 * since the zero address of the native coin is also a run of zeros inside other words.
 */
function namesToken(data: RawBuilder<unknown> | ReturnType<typeof sql.ref>, token: RawBuilder<unknown>) {
  return sql<boolean>`lower(${data}) ~ ('^0x[0-9a-f]{8}([0-9a-f]{64})*' || lpad(substring(${token} from 3), 64, '0'))`;
}

/** A deposit a confirmed sweep took, as its ledger entry needs it. */
interface SweptDeposit {
  chain: string;
  tx_hash: string;
  log_index: number;
  asset: string | null;
  amount: string;
}

const SWEPT_DEPOSIT_COLUMNS = sql`deposit.chain, deposit.tx_hash, deposit.log_index, deposit.asset, deposit.amount::text`;

/** Confirmed sweeps compared with their deposits per step at most, one receipt read each. */
const RECONCILIATIONS_PER_STEP = 20;

async function merchantOf(trx: Transaction<Database>, owner: AddressOwner): Promise<string> {
  if (owner.kind === 'merchant') return owner.id;
  const payment = await trx
    .selectFrom('payments')
    .select('merchant_id')
    .where('id', '=', owner.id)
    .executeTakeFirstOrThrow();
  return payment.merchant_id;
}

/**
 * Per token (lower case), the deposits to the owner's address that a sweep mined in `block` took: those recorded in
 * that block or before and not taken by a sweep mined earlier (so also those recorded too late for this sweep to mark
 * them, which a later one marks).
 */
async function sweptDepositsUpTo(
  trx: Transaction<Database>,
  sweep: { chain: string; owner: string; block: string },
): Promise<Map<string, bigint>> {
  const rows = await withDepositTables(trx)
    .selectFrom('evm_deposits as deposit')
    .select(['deposit.token', sql<string>`sum(deposit.amount)::text`.as('amount')])
    .where('deposit.chain', '=', sweep.chain)
    .where(sql<boolean>`${OWNER_OF_DEPOSIT} = ${sweep.owner}`)
    .where('deposit.block_number', '<=', sweep.block)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('evm_transactions as earlier')
            .select('earlier.id')
            .whereRef('earlier.id', '=', 'deposit.swept_by')
            .where('earlier.receipt_block_number', '<', sweep.block),
        ),
      ),
    )
    .groupBy('deposit.token')
    .execute();
  return new Map(rows.map((row) => [row.token, BigInt(row.amount)]));
}

/** Why a chain read failed, in a line: the node's answer where it gave one. */
function reasonOf(error: unknown): string {
  return error instanceof BaseError ? error.details || error.shortMessage : (error as Error).message;
}

/** Where a test stops the sweeper, as a process killed at that point would: after journaling a transfer, before sending it. */
export type SweepCrashHook = (point: 'recorded') => void;

/**
 * Moves what buyers sent to deposit addresses to the collector: one call of the collector's factory per address (a
 * payment's, or a merchant's own that its x402 payments pay), which creates the address's forwarder the first time
 * and transfers its whole balance of every token that reached it. The collector pays the gas; every transaction goes
 * through the relayer's journal, so it is signed and stored before it is sent, and a process that dies after storing
 * it leaves it to the network's follower to send, never to be signed again. A payment's deposits are swept once it
 * has closed (one sweep, whatever number of transfers paid it), a merchant's address's as they come, while no sweep
 * of it is on its way (one sweep takes the payments that came meanwhile); a confirmed sweep of the address recorded
 * after a deposit, whose call names the deposit's token, marks it swept. The factory is deployed the same way the
 * first time a network needs it, and no sweep is recorded before it has code: a call to an address without code
 * succeeds and moves nothing.
 */
export class DepositSweeper {
  private proxyMissingSaid = false;

  constructor(
    private readonly options: {
      db: Db;
      network: NetworkInfo;
      client: PublicClient;
      relayer: Relayer;
      log?: Logger;
      crash?: SweepCrashHook;
    },
  ) {}

  /** Records and sends the sweeps that deposits at depth call for; returns the relayed transactions' ids. */
  async step(): Promise<string[]> {
    const { db, network, relayer } = this.options;
    const collector = relayer.address.toLowerCase();
    await this.markSwept();
    await this.reconcileSweeps();
    // Only deposits not marked swept are read (a partial index holds them), so a step costs what is new.
    const due = await sql<{ owner: string; merchant: boolean; tokens: string[] }>`
      SELECT ${OWNER_OF_DEPOSIT} AS owner, deposit.address_merchant_id IS NOT NULL AS merchant,
        array_agg(DISTINCT deposit.token ORDER BY deposit.token) AS tokens
      FROM evm_deposits deposit
      JOIN payments payment ON payment.id = deposit.payment_id
      WHERE deposit.chain = ${network.caip2}
        AND deposit.swept_by IS NULL
        -- Tokens the network lists only: any contract can log a Transfer, and one whose transfer reverts would fail
        -- the payment's every sweep; the operator moves those by hand.
        AND deposit.asset IS NOT NULL
        AND payment.status <> 'requires_action'
        AND NOT EXISTS (
          SELECT 1 FROM evm_transactions sweep
          WHERE sweep.chain = deposit.chain
            AND sweep.from_address = ${collector}
            AND sweep.purpose = ${DEPOSIT_SWEEP_PURPOSE}
            AND sweep.payment_id = ${OWNER_OF_DEPOSIT}
            -- A merchant's own address is swept as its x402 payments are recorded (dust sent to it records nothing),
            -- once no sweep of it is on its way: what arrives meanwhile goes in the next one.
            AND (sweep.status NOT IN ('confirmed', 'failed') OR (deposit.address_merchant_id IS NULL AND sweep.status = 'confirmed' AND sweep.created_at > now() - ${SWEEP_SPACING}::interval))
        )
        AND (
          SELECT count(*) FROM evm_transactions failed
          WHERE failed.chain = deposit.chain
            AND failed.from_address = ${collector}
            AND failed.purpose = ${DEPOSIT_SWEEP_PURPOSE}
            AND failed.payment_id = ${OWNER_OF_DEPOSIT}
            AND failed.status = 'failed'
        ) < ${MAX_FAILED_SWEEPS}
      GROUP BY 1, 2
      ORDER BY min(deposit.created_at)
      LIMIT ${SWEEPS_PER_STEP}
    `.execute(db);
    const recoveries = await this.requestedRecoveries();
    if (!due.rows.length && !recoveries.length) return [];
    const factory = depositFactoryAddress(relayer.address);
    if (!(await hasCode(this.options.client, factory))) return this.deployFactory();
    const sent: string[] = [];
    for (const recovery of recoveries) sent.push(await this.recover(factory, recovery));
    for (const { owner, merchant, tokens } of due.rows) {
      sent.push(
        await this.relay({
          to: factory,
          data: encodeFunctionData({
            abi: depositFactoryAbi,
            functionName: 'sweep',
            args: [saltOf({ kind: merchant ? 'merchant' : 'payment', id: owner }), tokens as Address[]],
          }),
          purpose: DEPOSIT_SWEEP_PURPOSE,
          paymentId: owner,
          gas: sweepGas(tokens.length),
        }),
      );
    }
    return sent;
  }

  /**
   * Marks swept the deposits a confirmed sweep took: recorded after them (its transaction began later) and naming
   * their token, so a deposit of another token that committed late is not taken for swept.
   */
  private async markSwept(): Promise<void> {
    const { network, relayer } = this.options;
    await this.markSweptBy(sql<SweptDeposit>`
      UPDATE evm_deposits deposit SET swept_by = sweep.id
      FROM evm_transactions sweep
      WHERE deposit.chain = ${network.caip2}
        AND deposit.swept_by IS NULL
        AND deposit.asset IS NOT NULL
        AND sweep.chain = deposit.chain
        AND sweep.from_address = ${relayer.address.toLowerCase()}
        AND sweep.purpose = ${DEPOSIT_SWEEP_PURPOSE}
        AND sweep.payment_id = ${OWNER_OF_DEPOSIT}
        AND sweep.status = 'confirmed'
        AND sweep.created_at > deposit.created_at
        AND ${namesToken(sql.ref('sweep.data'), sql`deposit.token`)}
      RETURNING ${SWEPT_DEPOSIT_COLUMNS}
    `);
  }

  /** Marks the deposits `update` sweeps (returning `SWEPT_DEPOSIT_COLUMNS`) and writes their ledger entries with it. */
  private markSweptBy(update: RawBuilder<SweptDeposit>): Promise<void> {
    return inTransaction(this.options.db, async (trx) => postDepositsSwept(trx, (await update.execute(trx)).rows));
  }

  /**
   * The operator's recovery requests of this network not journaled yet, after marking what the finished ones took:
   * the deposits of the token a confirmed recovery sweep moved, recorded before it.
   */
  private async requestedRecoveries() {
    const { network } = this.options;
    const db = withDepositTables(this.options.db);
    const open = await db
      .selectFrom('evm_deposit_recoveries')
      .select(['id', 'payment_id', 'merchant_id', 'token', 'sweep_id', 'requested_at'])
      .where('chain', '=', network.caip2)
      .where('done_at', 'is', null)
      .execute();
    if (!open.length) return [];
    await this.markSweptBy(sql<SweptDeposit>`
      UPDATE evm_deposits deposit SET swept_by = sweep.id
      FROM evm_deposit_recoveries recovery JOIN evm_transactions sweep ON sweep.id = recovery.sweep_id
      WHERE recovery.chain = ${network.caip2}
        AND recovery.done_at IS NULL
        AND sweep.status = 'confirmed'
        AND deposit.chain = recovery.chain
        AND ${OWNER_OF_DEPOSIT} = coalesce(recovery.merchant_id, recovery.payment_id)
        AND deposit.token = recovery.token
        AND deposit.swept_by IS NULL
        AND deposit.created_at < sweep.created_at
      RETURNING ${SWEPT_DEPOSIT_COLUMNS}
    `);
    for (const recovery of open)
      if (recovery.sweep_id) await this.recordUnattributed(recovery, recoveryOwner(recovery));
    await sql`
      UPDATE evm_deposit_recoveries recovery SET done_at = now()
      FROM evm_transactions sweep
      WHERE sweep.id = recovery.sweep_id
        AND recovery.chain = ${network.caip2}
        AND recovery.done_at IS NULL
        AND sweep.status IN ('confirmed', 'failed')
    `.execute(db);
    return open.filter((recovery) => recovery.sweep_id === null);
  }

  /**
   * What a confirmed sweep of the owner's address moved to the collector, per token (lower case): the tokens from
   * its receipt's Transfer logs and, for a sweep that named the native coin (`nativeOf`), the coin under
   * `NATIVE_TOKEN` (see `nativeMovedBy`; absent where it could not be read). Read before any database transaction.
   */
  private async movedBy(
    minedHash: string,
    owner: AddressOwner,
    nativeOf?: { sweepId: string },
  ): Promise<Map<string, bigint>> {
    const { client, relayer } = this.options;
    const receipt = await client.getTransactionReceipt({ hash: minedHash as Hex });
    const from = pad(addressOf(relayer.address, owner)).toLowerCase();
    const to = pad(relayer.address).toLowerCase();
    const moved = new Map<string, bigint>();
    for (const log of receipt.logs) {
      if (log.topics[0] !== TRANSFER_TOPIC || log.topics[1]?.toLowerCase() !== from) continue;
      if (log.topics[2]?.toLowerCase() !== to) continue;
      const token = log.address.toLowerCase();
      moved.set(token, (moved.get(token) ?? 0n) + hexToBigInt(log.data));
    }
    if (nativeOf) {
      const native = await this.nativeMovedBy(receipt, owner, nativeOf.sweepId);
      if (native !== undefined) moved.set(NATIVE_TOKEN, native);
    }
    return moved;
  }

  /**
   * The native coin a sweep moved from the owner's address to the collector: the forwarder's call with its whole
   * balance, which logs nothing. Read from the transaction's call trace; where the node serves none or cannot trace
   * it, from the address's balance before the sweep's block, as the sweep moves it whole. Undefined, with a warning,
   * where neither can be read: the sweep's tokens are compared still, so such a node holds up no reconciliation.
   */
  private async nativeMovedBy(
    receipt: TransactionReceipt,
    owner: AddressOwner,
    sweepId: string,
  ): Promise<bigint | undefined> {
    const { client, relayer, network } = this.options;
    const address = addressOf(relayer.address, owner);
    const from = address.toLowerCase();
    const collector = relayer.address.toLowerCase();
    let untraced: string;
    try {
      const trace = await client.request<{
        Parameters: [Hex, { tracer: 'callTracer' }];
        ReturnType: CallFrame;
      }>({ method: 'debug_traceTransaction', params: [receipt.transactionHash, { tracer: 'callTracer' }] });
      if (typeof trace?.type !== 'string') throw new Error('the node answered no call frame');
      return nativeCredits(trace, (to) => to === collector)
        .filter((credit) => credit.from === from)
        .reduce((sum, credit) => sum + credit.amount, 0n);
    } catch (error) {
      untraced = reasonOf(error);
    }
    try {
      // This misses coin sent to the address earlier in the sweep's own block: the sweep moved it, the balance
      // before the block does not hold it, so the amount comes out short by it (and an unrecorded transfer of as
      // much may go unentered).
      return await client.getBalance({ address, blockNumber: receipt.blockNumber - 1n });
    } catch (error) {
      this.options.log?.warn(
        `sweep ${sweepId} on ${network.caip2} is compared with its deposits for its tokens only: the native coin it moved was read neither from its call trace (${untraced}) nor from the balance before its block (${reasonOf(error)})`,
      );
      return undefined;
    }
  }

  /**
   * A confirmed recovery of a token the network lists moved what the owner's address held: what its recorded
   * deposits do not explain (a transfer after the watch ended, or straight to a merchant's address) reached the
   * collector with no record, and the ledger says so (`recovered:<request id>`, unattributed for the merchant).
   */
  private async recordUnattributed(
    recovery: { id: string; token: string; sweep_id: string | null },
    owner: AddressOwner,
  ) {
    const { db, network } = this.options;
    const token = network.tokens.find((listed) => listed.address?.toLowerCase() === recovery.token);
    if (!token) return;
    const sweep = await db
      .selectFrom('evm_transactions')
      .select(['mined_hash', 'status'])
      .where('id', '=', recovery.sweep_id as string)
      .executeTakeFirst();
    if (sweep?.status !== 'confirmed' || !sweep.mined_hash) return;
    const moved = (await this.movedBy(sweep.mined_hash, owner)).get(recovery.token) ?? 0n;
    await inTransaction(db, async (trx) => {
      const recorded = await withDepositTables(trx)
        .selectFrom('evm_deposits')
        .select(sql<string>`coalesce(sum(amount), 0)::text`.as('amount'))
        .where('swept_by', '=', recovery.sweep_id)
        .executeTakeFirstOrThrow();
      const unexplained = moved - BigInt(recorded.amount);
      if (unexplained > 0n) {
        await postUnattributed(trx, `recovered:${recovery.id}`, {
          merchantId: await merchantOf(trx, owner),
          asset: token.caip19,
          amount: unexplained,
        });
      }
    });
  }

  /**
   * A sweep moves its address's whole balance of each token it names: what the deposits recorded up to its block do
   * not explain (a transfer the follower did not record) reached the collector with no record, and the ledger says so
   * (`unexplained:<sweep id>:<token>`, unattributed for the address's merchant). Each confirmed sweep is compared
   * once, after the network's deposit follower has read every block up to the sweep's and every transaction of the
   * collector mined up to it is final (an x402 payment's transfer to a merchant's address is recorded as its deposit
   * when it is final), so that a deposit mined before the sweep and recorded after it counts as explained, and is
   * marked swept by it (no second sweep goes for it). The
   * native coin moves without a log: a sweep naming it is compared for what its call trace, or else the address's
   * balance before its block, says it moved (`nativeMovedBy`; for its tokens only where neither can be read).
   */
  private async reconcileSweeps(): Promise<void> {
    const { db, network, relayer } = this.options;
    const due = await withDepositTables(db)
      .selectFrom('evm_transactions as sweep')
      .innerJoin('evm_deposit_cursors as cursor', 'cursor.chain', 'sweep.chain')
      .select(['sweep.id', 'sweep.payment_id', 'sweep.mined_hash', 'sweep.receipt_block_number'])
      .select(namesToken(sql.ref('sweep.data'), sql`${NATIVE_TOKEN}`).as('names_native'))
      .select(sql<boolean>`EXISTS (SELECT 1 FROM merchants WHERE merchants.id = sweep.payment_id)`.as('of_merchant'))
      .where('sweep.chain', '=', network.caip2)
      .where('sweep.purpose', '=', DEPOSIT_SWEEP_PURPOSE)
      .where('sweep.status', '=', 'confirmed')
      .where('sweep.reconciled_at', 'is', null)
      .where('sweep.from_address', '=', relayer.address.toLowerCase())
      .where(sql<boolean>`sweep.receipt_block_number < cursor.next_block`)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('evm_transactions as open')
              .select('open.id')
              .whereRef('open.chain', '=', 'sweep.chain')
              .whereRef('open.from_address', '=', 'sweep.from_address')
              .where('open.status', 'not in', ['confirmed', 'failed'])
              .whereRef('open.receipt_block_number', '<=', 'sweep.receipt_block_number'),
          ),
        ),
      )
      .orderBy('sweep.receipt_block_number')
      .limit(RECONCILIATIONS_PER_STEP)
      .execute();
    for (const sweep of due) {
      if (!sweep.mined_hash || !sweep.payment_id || sweep.receipt_block_number === null) continue;
      const owner: AddressOwner = { kind: sweep.of_merchant ? 'merchant' : 'payment', id: sweep.payment_id };
      const moved = await this.movedBy(sweep.mined_hash, owner, sweep.names_native ? { sweepId: sweep.id } : undefined);
      await inTransaction(db, async (trx) => {
        // Deposits it took but recorded too late for it to mark (the follower was behind) are its own too.
        await postDepositsSwept(
          trx,
          (
            await sql<SweptDeposit>`
              UPDATE evm_deposits deposit SET swept_by = ${sweep.id}
              FROM evm_transactions sweep
              WHERE sweep.id = ${sweep.id}
                AND deposit.chain = sweep.chain
                AND ${OWNER_OF_DEPOSIT} = sweep.payment_id
                AND deposit.swept_by IS NULL
                AND deposit.asset IS NOT NULL
                AND deposit.block_number <= sweep.receipt_block_number
                AND ${namesToken(sql.ref('sweep.data'), sql`deposit.token`)}
              RETURNING ${SWEPT_DEPOSIT_COLUMNS}
            `.execute(trx)
          ).rows,
        );
        const explained = await sweptDepositsUpTo(trx, {
          chain: network.caip2,
          owner: owner.id,
          block: sweep.receipt_block_number as string,
        });
        for (const [token, amount] of moved) {
          // The native coin has no contract address: it is the network's token paid natively.
          const listed = network.tokens.find((candidate) =>
            token === NATIVE_TOKEN ? candidate.method === 'native' : candidate.address?.toLowerCase() === token,
          );
          const unexplained = amount - (explained.get(token) ?? 0n);
          if (!listed || unexplained <= 0n) continue;
          await postUnattributed(trx, `unexplained:${sweep.id}:${token}`, {
            merchantId: await merchantOf(trx, owner),
            asset: listed.caip19,
            amount: unexplained,
          });
        }
        await trx
          .updateTable('evm_transactions')
          .set({ reconciled_at: sql`now()` })
          .where('id', '=', sweep.id)
          .execute();
      });
    }
  }

  /**
   * Journals and sends the factory's sweep of one token of one payment's or merchant's address, and notes it on the
   * request. A sweep journaled for the request before a crash (same owner and token, recorded after the request)
   * is taken as its own instead of signing a second.
   */
  private async recover(
    factory: Address,
    recovery: { id: string; payment_id: string | null; merchant_id: string | null; token: string; requested_at: Date },
  ): Promise<string> {
    const { db } = this.options;
    const owner = recoveryOwner(recovery);
    const journaled = await this.unfailed(DEPOSIT_RECOVERY_PURPOSE)
      .where('payment_id', '=', owner.id)
      .where('created_at', '>=', recovery.requested_at)
      .where(namesToken(sql.ref('data'), sql`${recovery.token}`))
      .executeTakeFirst();
    const sweepId =
      journaled?.id ??
      (await this.relay({
        to: factory,
        data: encodeFunctionData({
          abi: depositFactoryAbi,
          functionName: 'sweep',
          args: [saltOf(owner), [recovery.token as Address]],
        }),
        purpose: DEPOSIT_RECOVERY_PURPOSE,
        paymentId: owner.id,
        gas: sweepGas(1),
      }));
    await withDepositTables(db)
      .updateTable('evm_deposit_recoveries')
      .set({ sweep_id: sweepId })
      .where('id', '=', recovery.id)
      .execute();
    return sweepId;
  }

  /** Journals the factory's deployment, once, when the network has the deployment proxy; sweeps wait for it. */
  private async deployFactory(): Promise<string[]> {
    const { relayer, client, network } = this.options;
    if (await this.journaled(DEPOSIT_FACTORY_PURPOSE)) return [];
    if (!(await hasCode(client, DETERMINISTIC_DEPLOYER))) {
      if (!this.proxyMissingSaid) {
        this.options.log?.warn(
          `deposits on ${network.caip2} cannot be swept: the network has no deterministic deployment proxy at ${DETERMINISTIC_DEPLOYER}`,
        );
        this.proxyMissingSaid = true;
      }
      return [];
    }
    return [await this.relay(factoryDeployment(relayer.address))];
  }
  private async relay(request: {
    to: Address;
    data: `0x${string}`;
    purpose: string;
    paymentId?: string;
    gas: bigint;
  }): Promise<string> {
    const { relayer, network } = this.options;
    const recorded = await relayer.record({ chain: network.caip2, ...request });
    this.options.crash?.('recorded');
    await relayer.broadcast(recorded.id);
    return recorded.id;
  }

  /** The collector's transactions of this purpose on this network that have not failed (sent, or waiting to be). */
  private unfailed(purpose: string) {
    const { db, network, relayer } = this.options;
    return db
      .selectFrom('evm_transactions')
      .select('id')
      .where('chain', '=', network.caip2)
      .where('from_address', '=', relayer.address.toLowerCase())
      .where('purpose', '=', purpose)
      .where('status', '<>', 'failed');
  }

  private async journaled(purpose: string): Promise<boolean> {
    return (await this.unfailed(purpose).executeTakeFirst()) !== undefined;
  }
}
