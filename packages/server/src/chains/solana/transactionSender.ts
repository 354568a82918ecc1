import {
  address,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionEncoder,
  isSolanaError,
  partiallySignTransaction,
  signature as toSignature,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  type Base64EncodedWireTransaction,
  type Commitment,
  type Transaction,
} from '@solana/kit';
import type { Transaction as KyselyTransaction, Selectable } from 'kysely';
import pMap from 'p-map';
import type { Db } from '../../db/database.ts';
import type { Database, SolanaTransactionsTable, SolanaTransactionStatus } from '../../db/schema.ts';
import type { TransferOutcomeHandler } from '../transferOutcomes.ts';
import type { SolanaCollector } from './collectorKeyPair.ts';
import { BlockhashExpiredError, SolanaTransactionConflictError, SolanaTransactionRejectedError } from './errors.ts';
import type { SolanaRpc } from './rpc.ts';
import {
  lockedOperatorFunding,
  postNetworkFee,
  requireNetworkFeeFunded,
  reserveNetworkFee,
} from '../../ledger/ledger.ts';
import { maxNetworkFeeOf } from './networkFeeAllowance.ts';
import { CollectorJournalBehindError } from '../collectorJournalBehind.ts';
import { type Logger, silentLogger } from '../../log.ts';
import { UnjournaledTransactions } from './unjournaledTransactions.ts';
import { lamportsTransferredFrom } from './systemTransfers.ts';
import type { FetchedSolanaTransaction } from './validateSolanaPayTransfer.ts';

export type SolanaTransactionPurpose =
  | 'payment'
  | 'settlement'
  | 'refund'
  | 'inflow_return'
  | 'x402_pay_to_account'
  | 'x402_sweep';
export type SolanaJournalEntry = Selectable<SolanaTransactionsTable>;

/**
 * The commitment a network's `confirmations` asks for: 1 is `confirmed` (a supermajority voted for the block; no
 * such block has been rolled back on mainnet), more is `finalized` (rooted: about 32 slots, it can never be rolled
 * back). Below its commitment a transaction that a dropped fork took away is only unseen again: its bytes are sent
 * again until its blockhash expires.
 */
export function commitmentFor(confirmations: number): 'confirmed' | 'finalized' {
  return confirmations > 1 ? 'finalized' : 'confirmed';
}

export interface SolanaTransactionSenderOptions {
  db: Db;
  rpc: SolanaRpc;
  /** The `confirmed` block height, when something shares one reading among its callers; else asked each time. */
  blockHeight?: () => Promise<bigint>;
  /** CAIP-2 id of the network `rpc` talks to; the journal is kept per network. */
  network: string;
  collector: SolanaCollector;
  /** How final a transaction must be before it counts as confirmed. */
  commitment: 'confirmed' | 'finalized';
  /** Between re-sends of the same bytes while a transaction has not landed, as nodes may drop it. */
  resendIntervalMs?: number;
  /** What a transaction's final state means for the service, applied in the transaction that records it. */
  onFinal?: TransferOutcomeHandler;
  log?: Logger;
}

export interface CosignRequest {
  purpose: SolanaTransactionPurpose;
  /** The payment (or settlement batch) id. */
  reference: string;
  /** The buyer-signed transaction, already checked by verifyBuyerSignedTransaction. */
  transaction: Transaction;
  lastValidBlockHeight: bigint;
  /** The caller built it from a blockhash it just read, so it cannot have expired: the block height is not asked. */
  builtJustNow?: boolean;
}

type Assessment =
  | { kind: 'reached'; slot: bigint }
  | { kind: 'failed'; slot: bigint; reason: string }
  | { kind: 'landing' }
  | { kind: 'expired'; blockHeight: bigint }
  | { kind: 'unseen' };

const COMMITMENT_ORDER: Commitment[] = ['processed', 'confirmed', 'finalized'];

/** How long a landed entry waits for its node to serve the transaction (for its fee) before it completes without. */
const UNREADABLE_FEE_WAIT_MS = 5 * 60_000;
const OPEN_STATUSES: SolanaTransactionStatus[] = ['recorded', 'sent'];
const STATUS_BATCH = 256;
/** How long a reading that found every transaction of the collector held is trusted: a burst asks the node once. */
const JOURNAL_CHECK_MS = 5_000;
const LIVE_REFERENCE_INDEX = 'solana_transactions_live_reference_idx';

function describeError(error: unknown): string {
  return JSON.stringify(error, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError.code === '23505' && pgError.constraint === constraint;
}

/**
 * Co-signs buyer-signed transactions with the collector and sees them onto the chain. Every transaction is
 * journaled with its complete signed bytes before it is first sent; only those bytes are ever (re-)sent, so at
 * most one transaction per payment can land, and a restart picks up where the last process stopped.
 */
export class SolanaTransactionSender {
  private readonly resendIntervalMs: number;
  private readonly unjournaled: UnjournaledTransactions;
  /** When a reading last found every transaction of the collector held. */
  private journalCompleteAt = Number.NEGATIVE_INFINITY;
  /** The gap last logged, so each is logged once. */
  private reportedGap: string | undefined;

  constructor(private readonly options: SolanaTransactionSenderOptions) {
    this.resendIntervalMs = options.resendIntervalMs ?? 2_000;
    const { db, rpc, network, collector, commitment } = options;
    this.unjournaled = new UnjournaledTransactions({ db, rpc, network, collector: collector.address, commitment });
  }

  /**
   * The collector's transactions on the network that no record of the service holds (a restore to an older point,
   * the key used by hand), newest first; while there is one, nothing is journaled (`cosignAndRecord`).
   */
  unjournaledTransactions(): Promise<string[]> {
    return this.unjournaled.find();
  }

  /**
   * Adds the collector's signature and journals the complete transaction without sending it. A transaction already
   * journaled (the same confirm repeated) is returned as it is; a new one is refused with `CollectorJournalBehindError`
   * while the collector has a transaction on the network that no record holds.
   */
  async cosignAndRecord(request: CosignRequest): Promise<SolanaJournalEntry> {
    const { db, rpc, network, collector, blockHeight: sharedBlockHeight } = this.options;
    const signed = await partiallySignTransaction([collector.keyPair], request.transaction);
    const feePayer = Object.keys(signed.signatures)[0];
    if (feePayer !== collector.address)
      throw new Error('the collector must be the fee payer of a sponsored transaction');
    const signature = getSignatureFromTransaction(signed);

    const existing = await db
      .selectFrom('solana_transactions')
      .selectAll()
      .where('signature', '=', signature)
      .executeTakeFirst();
    if (existing) return this.sameReference(existing, request);
    await this.requireJournalComplete();

    if (!request.builtJustNow) {
      const blockHeight = await (sharedBlockHeight?.() ?? rpc.getBlockHeight({ commitment: 'confirmed' }).send());
      if (blockHeight > request.lastValidBlockHeight)
        throw new BlockhashExpiredError(request.lastValidBlockHeight, blockHeight);
    }

    const { lifetimeToken: blockhash } = getCompiledTransactionMessageDecoder().decode(signed.messageBytes);
    try {
      // The most it can cost the collector is taken from the operator's funding in the transaction that journals
      // it, under the operator account's lock: transactions journaled at once in any process each see what the ones
      // before them reserved, and one the operator cannot cover is refused (NetworkFeeShortfallError) unjournaled.
      const inserted = await db.transaction().execute(async (trx) => {
        const held = await lockedOperatorFunding(trx, this.nativeAsset);
        const row = await trx
          .insertInto('solana_transactions')
          .values({
            network,
            purpose: request.purpose,
            reference: request.reference,
            signature,
            wire_transaction: Buffer.from(getTransactionEncoder().encode(signed)),
            blockhash,
            last_valid_block_height: request.lastValidBlockHeight,
          })
          .onConflict((conflict) => conflict.column('signature').doNothing())
          .returningAll()
          .executeTakeFirst();
        if (row) {
          const maxFee = maxNetworkFeeOf(signed, collector.address);
          await reserveNetworkFee(trx, `network_fee:${row.id}`, { nativeAsset: this.nativeAsset, maxFee, held });
        }
        return row;
      });
      if (inserted) return inserted;
    } catch (error) {
      if (!isUniqueViolation(error, LIVE_REFERENCE_INDEX)) throw error;
      const live = await db
        .selectFrom('solana_transactions')
        .select('signature')
        .where('purpose', '=', request.purpose)
        .where('reference', '=', request.reference)
        .where('status', 'in', ['recorded', 'sent', 'confirmed'])
        .executeTakeFirst();
      throw new SolanaTransactionConflictError(request.purpose, request.reference, live?.signature ?? 'unknown');
    }
    // A concurrent confirm of the same transaction journaled it first.
    const raced = await db
      .selectFrom('solana_transactions')
      .selectAll()
      .where('signature', '=', signature)
      .executeTakeFirstOrThrow();
    return this.sameReference(raced, request);
  }

  /**
   * Whether the operator's funding of SOL covers what the transaction can cost the collector as its fee payer
   * (`maxNetworkFeeOf`): refused with `NetworkFeeShortfallError`, for a check before it is co-signed (a buyer's
   * confirm). Journaling it reserves the fee and may still be refused.
   */
  async requireNetworkFeeFunded(transaction: Transaction): Promise<void> {
    const { db, collector } = this.options;
    await requireNetworkFeeFunded(db, this.nativeAsset, maxNetworkFeeOf(transaction, collector.address));
  }

  /**
   * Co-signs, journals and sends once, without waiting: the network's follower sees it land, fail or expire. A node's
   * refusal of the first send throws SolanaTransactionRejectedError (the entry has failed).
   */
  async cosignRecordAndSend(request: CosignRequest): Promise<SolanaJournalEntry> {
    const entry = await this.cosignAndRecord(request);
    if (OPEN_STATUSES.includes(entry.status)) await this.send(entry);
    return entry;
  }

  /** Sends a journaled transaction once; see `send`. */
  async sendJournaled(entry: SolanaJournalEntry): Promise<void> {
    await this.send(entry);
  }

  /**
   * One pass of the network's follower: the status of every open entry in batches of 256 (two RPC calls per batch,
   * however many payments wait), recording what landed, failed or expired; the journaled bytes of entries not seen
   * yet are sent again at most every `resendIntervalMs`, and entries a crash left unsent are sent.
   */
  async follow(): Promise<{ busy: boolean }> {
    const { db, network } = this.options;
    const open = await db
      .selectFrom('solana_transactions')
      .selectAll()
      .where('network', '=', network)
      .where('status', 'in', OPEN_STATUSES)
      .orderBy('id')
      .execute();
    for (let start = 0; start < open.length; start += STATUS_BATCH) {
      const batch = open.slice(start, start + STATUS_BATCH);
      const assessments = await this.assess(batch);
      // Each entry's end commits with its payment's change: several at once, on pooled connections; one entry's
      // trouble is reported after the others are done, not before.
      await pMap(
        batch.entries(),
        async ([index, entry]) => {
          const assessment = assessments[index] as Assessment;
          if (assessment.kind === 'expired') await this.complete(entry, 'expired', {});
          else if (assessment.kind === 'reached' || assessment.kind === 'failed')
            await this.recordOutcome(entry, assessment);
          else if (assessment.kind === 'unseen' && Date.now() - entry.updated_at.getTime() >= this.resendIntervalMs) {
            await this.send(entry).catch((error: unknown) => {
              if (!(error instanceof SolanaTransactionRejectedError)) throw error;
            });
          }
        },
        { concurrency: 8, stopOnError: false },
      );
    }
    return { busy: open.length > 0 };
  }

  /**
   * Refuses with `CollectorJournalBehindError` (logged once, at error) while the collector has transactions on the
   * network that no record holds: whatever they paid, the database may decide to pay again.
   */
  private async requireJournalComplete(): Promise<void> {
    if (Date.now() - this.journalCompleteAt < JOURNAL_CHECK_MS) return;
    const unheld = await this.unjournaled.find();
    if (!unheld.length) {
      this.journalCompleteAt = Date.now();
      return;
    }
    const gap = new CollectorJournalBehindError(
      this.options.network,
      BigInt(unheld.length),
      `the newest is ${unheld[0]}`,
    );
    if (this.reportedGap !== gap.evidence) {
      this.reportedGap = gap.evidence;
      (this.options.log ?? silentLogger).error({ network: gap.chain, missing: gap.missing.toString() }, gap.message);
    }
    throw gap;
  }

  /** SOL on this network: the operator funds the collector's fees in it. */
  private get nativeAsset(): string {
    return `${this.options.network}/slip44:501`;
  }

  private sameReference(entry: SolanaJournalEntry, request: CosignRequest): SolanaJournalEntry {
    if (entry.purpose !== request.purpose || entry.reference !== request.reference) {
      throw new SolanaTransactionConflictError(request.purpose, request.reference, entry.signature);
    }
    return entry;
  }

  /**
   * Where each transaction stands. The block height is read before the statuses: a transaction not found after
   * the chain passed its last valid block height can never land, so it is safe to call it expired.
   */
  private async assess(entries: SolanaJournalEntry[]): Promise<Assessment[]> {
    const { rpc, commitment } = this.options;
    const blockHeight = await rpc.getBlockHeight({ commitment: 'finalized' }).send();
    const { value: statuses } = await rpc
      .getSignatureStatuses(
        entries.map((entry) => toSignature(entry.signature)),
        { searchTransactionHistory: true },
      )
      .send();
    return entries.map((entry, index): Assessment => {
      const status = statuses[index];
      if (status) {
        if (status.err) return { kind: 'failed', slot: status.slot, reason: describeError(status.err) };
        const reached =
          status.confirmationStatus !== null &&
          COMMITMENT_ORDER.indexOf(status.confirmationStatus) >= COMMITMENT_ORDER.indexOf(commitment);
        return reached ? { kind: 'reached', slot: status.slot } : { kind: 'landing' };
      }
      return blockHeight > BigInt(entry.last_valid_block_height)
        ? { kind: 'expired', blockHeight }
        : { kind: 'unseen' };
    });
  }

  private async recordOutcome(
    entry: SolanaJournalEntry,
    outcome: Extract<Assessment, { kind: 'reached' | 'failed' }>,
  ): Promise<void> {
    // Landed, it cost the collector its fee (and any rent it put into accounts the transaction created). A node that
    // does not serve the transaction yet is asked again on the next pass; one that never does (it dropped it) does
    // not hold the entry for more than a few minutes, and the audit then shows the fee as a difference.
    const networkFee = await this.collectorSpent(entry.signature);
    if (networkFee === undefined && Date.now() - entry.updated_at.getTime() < UNREADABLE_FEE_WAIT_MS) return;
    if (outcome.kind === 'reached') await this.complete(entry, 'confirmed', { slot: outcome.slot, networkFee });
    else await this.complete(entry, 'failed', { slot: outcome.slot, error: outcome.reason, networkFee });
  }

  /**
   * The lamports a landed transaction took from the collector for the network: its fee, and rent for the accounts it
   * created; SOL it paid someone (a payout in SOL) is its payout's, recorded by the payout's end.
   */
  private async collectorSpent(signature: string): Promise<bigint | undefined> {
    const { rpc, commitment, collector } = this.options;
    const landed = await rpc
      .getTransaction(toSignature(signature), { commitment, encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    if (!landed?.meta) return undefined;
    const index = landed.transaction.message.accountKeys.indexOf(address(collector.address));
    if (index < 0) return 0n;
    const paid = lamportsTransferredFrom(landed as unknown as FetchedSolanaTransaction, collector.address);
    return BigInt(landed.meta.preBalances[index] ?? 0n) - BigInt(landed.meta.postBalances[index] ?? 0n) - paid;
  }

  /** Records the entry's end and, in the same transaction, its network fee and what it means for the service. */
  private async complete(
    entry: SolanaJournalEntry,
    status: 'confirmed' | 'failed' | 'expired',
    fields: { slot?: bigint; error?: string; networkFee?: bigint },
  ): Promise<void> {
    await this.end(
      status,
      (trx) =>
        trx
          .updateTable('solana_transactions')
          .set({
            status,
            slot: fields.slot ?? null,
            error: fields.error ?? null,
            completed_at: new Date(),
            updated_at: new Date(),
          })
          .where('id', '=', entry.id)
          .where('status', 'in', OPEN_STATUSES)
          .returningAll()
          .executeTakeFirst(),
      fields.networkFee,
    );
  }

  /** A refusal of the first send: no copy exists anywhere, so the entry has failed. Returns whether it was the first. */
  private failOnFirstSend(entry: SolanaJournalEntry, reason: string): Promise<boolean> {
    return this.end('failed', (trx) =>
      trx
        .updateTable('solana_transactions')
        .set({ status: 'failed', error: reason, completed_at: new Date(), updated_at: new Date() })
        .where('id', '=', entry.id)
        .where('status', '=', 'sent')
        .where('send_attempts', '=', 1)
        .returningAll()
        .executeTakeFirst(),
    );
  }

  /**
   * Ends an open entry and, in the same transaction, enters its network fee (`networkFee`, none for one that never
   * landed: its reservation goes back to the operator) and applies what its end means for the service.
   */
  private async end(
    status: 'confirmed' | 'failed' | 'expired',
    update: (trx: KyselyTransaction<Database>) => Promise<SolanaJournalEntry | undefined>,
    networkFee = 0n,
  ): Promise<boolean> {
    const { db, onFinal } = this.options;
    return db.transaction().execute(async (trx) => {
      const completed = await update(trx);
      if (!completed) return false;
      await postNetworkFee(trx, `network_fee:${completed.id}`, this.nativeAsset, networkFee);
      if (!onFinal) return true;
      await onFinal(trx, {
        chain: completed.network,
        purpose: completed.purpose,
        reference: completed.reference,
        status,
        hash: completed.signature,
        nonce: null,
        reason: completed.error,
      });
      return true;
    });
  }

  /**
   * Sends the journaled bytes with preflight. The attempt is counted before sending, so an entry still `recorded`
   * was certainly never sent. A node's refusal on the very first attempt means no copy exists anywhere: the entry
   * fails and the payment may build a new transaction. Refusals of later attempts are ignored (an earlier copy may
   * still land), as are lost requests: the status polls and the expiry decide.
   */
  private async send(entry: SolanaJournalEntry): Promise<void> {
    const { db, rpc } = this.options;
    const counted = await db
      .updateTable('solana_transactions')
      .set((eb) => ({
        send_attempts: eb('send_attempts', '+', 1),
        status: 'sent',
        first_sent_at: eb.fn.coalesce('first_sent_at', eb.val(new Date())),
        updated_at: new Date(),
      }))
      .where('id', '=', entry.id)
      .where('status', 'in', OPEN_STATUSES)
      .returning('send_attempts')
      .executeTakeFirst();
    if (!counted) return;
    const wire = entry.wire_transaction.toString('base64') as Base64EncodedWireTransaction;
    try {
      await rpc.sendTransaction(wire, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) return;
      const failed = await this.failOnFirstSend(entry, refusal.reason);
      if (failed) throw new SolanaTransactionRejectedError(entry.signature, refusal.reason, refusal.logs);
    }
  }
}

/** A node's definite refusal of a transaction, or null when the outcome is open (lost request, already seen, blockhash unknown to this node). */
function refusalOf(error: unknown): { reason: string; logs: readonly string[] } | null {
  if (isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE)) {
    return { reason: 'signature verification failed', logs: [] };
  }
  if (!isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) return null;
  const cause = error.cause;
  if (
    isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND) ||
    isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)
  ) {
    return null;
  }
  return { reason: cause instanceof Error ? cause.message : error.message, logs: error.context.logs ?? [] };
}
