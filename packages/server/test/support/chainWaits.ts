import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex, PublicClient, TransactionReceipt } from 'viem';
import { type CheckReport, type Relayer, receiptOrNull } from '../../src/chains/evm/relayer.ts';
import {
  findTransaction,
  openTransactionsWithHashes,
  type StoredTransaction,
} from '../../src/chains/evm/relayerStore.ts';
import type { NetworkInfo } from '../../src/chains/registry.ts';
import { BlockhashExpiredError } from '../../src/chains/solana/errors.ts';
import type {
  CosignRequest,
  SolanaJournalEntry,
  SolanaTransactionSender,
} from '../../src/chains/solana/transactionSender.ts';
import type { Db } from '../../src/db/database.ts';

/**
 * Waiting on one transaction at a time, for the chain layer's tests and the benchmarks. The service waits on none:
 * each network's follower moves every open transaction forward from one read of each block or slot. These drive the
 * same production steps (the relayer's `check`, the Solana sender's `follow`) for one transaction.
 */

/** A relayer with what a test reads beside it: its database and the node of the network it sends on. */
export interface RelayerOnNetwork {
  relayer: Relayer;
  db: Db;
  client: PublicClient;
  network: NetworkInfo;
}

export interface RelayedOutcome {
  status: 'confirmed' | 'failed';
  /** The hash that landed, or null when the transaction never did (its nonce was taken by another one). */
  hash: Hex | null;
  receipt: TransactionReceipt | null;
  reason: string | null;
}

function isFinal(transaction: StoredTransaction): boolean {
  return transaction.status === 'confirmed' || transaction.status === 'failed';
}

async function storedTransaction(db: Db, id: string): Promise<StoredTransaction> {
  const transaction = await findTransaction(db, id);
  if (!transaction) throw new Error(`no relayed transaction ${id}`);
  return transaction;
}

/**
 * Checks one relayed transaction (sending, replacing, tracking its receipt) until it is final at the network's
 * depth, four times a block counting each round's own time, so a receipt is seen soon after its block.
 */
export async function waitForRelayedOutcome(
  { relayer, db, client, network }: RelayerOnNetwork,
  id: string,
  { timeoutMs = 300_000 }: { timeoutMs?: number } = {},
): Promise<RelayedOutcome> {
  const deadline = Date.now() + timeoutMs;
  const interval = Math.min(Math.max(network.blockTimeMs / 4, 50), 2_000);
  for (;;) {
    const roundStartedAt = Date.now();
    const transaction = await storedTransaction(db, id);
    if (isFinal(transaction)) {
      const hash = transaction.mined_hash as Hex | null;
      return {
        status: transaction.status === 'confirmed' ? 'confirmed' : 'failed',
        hash,
        receipt: hash ? await receiptOrNull(client, hash) : null,
        reason: transaction.failure_reason,
      };
    }
    if (Date.now() > deadline) throw new Error(`transaction ${id} is not final after ${timeoutMs} ms`);
    await relayer.check(transaction);
    if (!isFinal(await storedTransaction(db, id))) await sleep(Math.max(interval - (Date.now() - roundStartedAt), 0));
  }
}

/**
 * Checks every open transaction of the relayer on the network once, as a process taking over from one that stopped
 * would, and sums up what that did.
 */
export async function checkOpenTransactions({ relayer, db, network }: RelayerOnNetwork): Promise<CheckReport> {
  const total: CheckReport = { sent: [], replaced: [], confirmed: [], failed: [], reorged: [] };
  for (const transaction of await openTransactionsWithHashes(db, network.caip2, relayer.address)) {
    const report = await relayer.check(transaction);
    total.sent.push(...report.sent);
    total.replaced.push(...report.replaced);
    total.confirmed.push(...report.confirmed);
    total.failed.push(...report.failed);
    total.reorged.push(...report.reorged);
  }
  return total;
}

/** A Solana sender with the database its journal is in. */
export interface SolanaJournal {
  sender: SolanaTransactionSender;
  db: Db;
}

/** Co-signs, journals and sends once as a confirm does, then follows the network until the transaction is final. */
export async function cosignAndConfirm(
  journal: SolanaJournal,
  request: CosignRequest,
  options: { pollIntervalMs?: number } = {},
): Promise<SolanaJournalEntry> {
  return followUntilFinal(journal, await journal.sender.cosignRecordAndSend(request), options);
}

/**
 * Follows the journal entry's network as its follower does (statuses, re-sends, expiry) until the entry is final:
 * returns it once confirmed, throws once it failed or expired. Sends nothing the follower would not.
 */
export async function followUntilFinal(
  { sender, db }: SolanaJournal,
  entry: SolanaJournalEntry,
  { pollIntervalMs = 400 }: { pollIntervalMs?: number } = {},
): Promise<SolanaJournalEntry> {
  for (;;) {
    await sender.follow();
    const current = await db
      .selectFrom('solana_transactions')
      .selectAll()
      .where('id', '=', entry.id)
      .executeTakeFirstOrThrow();
    if (current.status === 'confirmed') return current;
    if (current.status === 'failed')
      throw new Error(`the transaction ${current.signature} failed on chain: ${current.error ?? 'unknown'}`);
    if (current.status === 'expired') throw new BlockhashExpiredError(BigInt(current.last_valid_block_height), null);
    await sleep(pollIntervalMs);
  }
}
