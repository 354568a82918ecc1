import pMap from 'p-map';
import { memoised } from '../../memo.ts';
import {
  BaseError,
  formatTransactionReceipt,
  type Hex,
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import type { Db } from '../../db/database.ts';
import type { NetworkInfo } from '../registry.ts';
import type { TransferOutcomeHandler } from '../transferOutcomes.ts';
import { type Relayer, receiptOrNull } from './relayer.ts';
import { type OpenTransaction, openTransactionsWithHashes } from './relayerStore.ts';
import {
  type ChainWatch,
  clearWatchInclusion,
  finishWatch,
  MINED_BEFORE_OPTION,
  openWatches,
  recordWatchInclusion,
} from './watches.ts';
import type { Logger } from '../../log.ts';

export interface EvmFollowerOptions {
  db: Db;
  network: NetworkInfo;
  client: PublicClient;
  relayer: Relayer;
  onFinal: TransferOutcomeHandler;
  clock: { now(): Date };
  log?: Logger;
}

/** What a step found, for choosing when to take the next one. */
export interface FollowerStep {
  /** Something was open on the network. */
  busy: boolean;
  /** The chain's head this step read. */
  head: bigint;
  blocksRead: number;
  /** Set when everything open sits in a block: how many blocks until the first of them reaches the network's depth. */
  blocksUntilDue?: number;
}

type Watched = { kind: 'relayed'; transaction: OpenTransaction } | { kind: 'watch'; watch: ChainWatch };

/**
 * Transactions worked on at once within a pass: their receipt reads go out as one JSON-RPC batch, and each one's
 * database transaction runs on its own pooled connection, so a block holding a thousand payments is not a thousand
 * round trips in a row.
 */
const CONCURRENCY = 8;

/** More new blocks than this at once (a long pause, a new leader far behind) are not read one by one. */
const MAX_BLOCKS_PER_STEP = 64n;

/** Blocks kept beyond the network's depth, to find where a reorg forked. */
const EXTRA_REMEMBERED_BLOCKS = 32n;

/**
 * Follows one EVM network for the whole service: reads each new block once and moves every open transaction of
 * that network forward from it (the relayer's submissions and settlements, and the buyers' own transfers that
 * payments wait on): inclusion, depth, revert, reorg, and the deadline of a transfer that never comes. Its RPC calls
 * grow with blocks and with transactions found, not with how often or how long anything waits. One process
 * follows a network at a time (see ChainFollowers); every write is conditional on the state it read, so a second
 * follower for a moment does no harm.
 */
export class EvmFollower {
  private readonly depth: bigint;
  /** Canonical block hashes by number, as far back as a reorg below the depth could reach. */
  private readonly recent = new Map<bigint, string>();
  private lastRead: bigint | null = null;
  /** Watches already looked up on their own: a buyer may have sent its transfer before the watch existed. */
  private readonly lookedUp = new Set<string>();
  /** Blocks below the remembered ones read during this pass, by number. */
  private readonly reading = new Map<bigint, Promise<string>>();
  private blockReceiptsSupported = true;
  /** When each open transaction not in a block was last checked on its own (resend, replace, nonce taken). */
  private readonly lastChecked = new Map<string, number>();

  constructor(private readonly options: EvmFollowerOptions) {
    this.depth = BigInt(Math.max(options.network.confirmations, 1));
  }

  /** One pass: read the head and the new blocks, and move every open transaction of the network forward. */
  async step(): Promise<FollowerStep> {
    const { db, network, client, relayer } = this.options;
    this.reading.clear();
    const head = await client.getBlockNumber({ cacheTime: 0 });
    // Read after the head: a transaction the relayer records from now on is sent afterwards, so it lands above it.
    const [relayed, watches] = await Promise.all([
      openTransactionsWithHashes(db, network.caip2, relayer.address),
      openWatches(db, network.caip2),
    ]);
    const result: FollowerStep = { busy: relayed.length > 0 || watches.length > 0, head, blocksRead: 0 };
    if (!result.busy) {
      this.forget(head);
      return result;
    }
    if (this.lastRead === null || head - this.lastRead > MAX_BLOCKS_PER_STEP) {
      await this.catchUp(relayed, watches, head);
      return result;
    }
    const awaitingBlock =
      relayed.some((transaction) => transaction.receipt_block_number === null) ||
      watches.some((watch) => watch.block_hash === null);
    if (!awaitingBlock) return this.awaitDepth(relayed, watches, head, result);
    if (head < this.lastRead) await this.rewindTo(head, relayed, watches);
    await this.lookUpNewWatches(watches);

    const byHash = new Map<string, Watched[]>();
    const add = (hash: string, watched: Watched) => byHash.set(hash, [...(byHash.get(hash) ?? []), watched]);
    for (const transaction of relayed)
      for (const hash of transaction.hashes) add(hash.toLowerCase(), { kind: 'relayed', transaction });
    for (const watch of watches) add(watch.tx_hash, { kind: 'watch', watch });
    for (let number = this.lastRead + 1n; number <= head; number += 1n) {
      const block = await client.getBlock({ blockNumber: number, includeTransactions: false });
      result.blocksRead += 1;
      const parent = this.recent.get(number - 1n);
      if (parent !== undefined && parent !== block.parentHash) {
        // The chain we read forked below this block: drop what we knew above the fork and read on from there.
        await this.rewindTo(number - 1n, relayed, watches);
        return result;
      }
      this.remember(number, block.hash);
      const ours = block.transactions.flatMap((hash) => {
        const found = byHash.get(hash.toLowerCase());
        return found ? [{ hash, found }] : [];
      });
      const seenIn = { number, hash: block.hash, timestamp: block.timestamp };
      const receipts = ours.length > 1 ? await this.blockReceipts(block.hash) : null;
      await pMap(
        ours,
        ({ hash, found }) =>
          this.guarded(`transaction ${hash}`, () =>
            this.found(found, hash, seenIn, head, receipts?.get(hash.toLowerCase())),
          ),
        { concurrency: CONCURRENCY },
      );
      this.lastRead = number;
    }
    await this.finishDeepEnough(head);
    await this.expireWatches();
    await this.checkStragglers(relayed);
    return result;
  }

  /**
   * Everything open already sits in a block, so only depth matters, and that needs none of the blocks in between:
   * each one's own block is read again when it is due, and a reorg that replaced it is seen then. Blocks are read
   * again once something waits for one; a transaction recorded from now on lands above this head.
   */
  private async awaitDepth(
    relayed: OpenTransaction[],
    watches: ChainWatch[],
    head: bigint,
    result: FollowerStep,
  ): Promise<FollowerStep> {
    // A block above the head is gone: the chain was cut back below it, and what it held waits for a block again.
    await this.rewindTo(head, relayed, watches);
    this.recent.clear();
    await this.finishDeepEnough(head);
    const included = [
      ...relayed.map((transaction) => transaction.receipt_block_number),
      ...watches.map((watch) => watch.block_number),
    ];
    if (included.some((number) => BigInt(number as string) > head)) return result;
    const due = included.map((number) => BigInt(number as string) + this.depth - 1n).filter((number) => number > head);
    if (due.length)
      result.blocksUntilDue = Number(due.reduce((first, number) => (number < first ? number : first)) - head);
    return result;
  }

  /** The watched transaction's block is gone: it is looked up on its own again, as it may already be in another. */
  private async watchAgain(watch: ChainWatch): Promise<void> {
    await clearWatchInclusion(this.options.db, watch);
    this.lookedUp.delete(watch.tx_hash);
  }

  /** Nothing is open: nothing needs blocks until something is, and then only blocks after this head. */
  private forget(head: bigint): void {
    this.lastRead = head;
    this.recent.clear();
    this.lookedUp.clear();
    this.lastChecked.clear();
  }

  /** Without the blocks in between, every open transaction is looked up on its own once; from then on blocks are read. */
  private async catchUp(relayed: OpenTransaction[], watches: ChainWatch[], head: bigint): Promise<void> {
    this.recent.clear();
    for (const transaction of relayed)
      await this.guarded(`transaction ${transaction.id}`, () => this.options.relayer.check(transaction));
    this.lookedUp.clear();
    await this.lookUpNewWatches(watches);
    this.lastRead = head;
    await this.finishDeepEnough(head);
    await this.expireWatches();
  }

  private async lookUpNewWatches(watches: ChainWatch[]): Promise<void> {
    for (const watch of watches) {
      if (this.lookedUp.has(watch.tx_hash) || watch.block_hash !== null) continue;
      await this.guarded(`transaction ${watch.tx_hash}`, async () => {
        const receipt = await receiptOrNull(this.options.client, watch.tx_hash as Hex);
        if (receipt) {
          const block = await this.options.client.getBlock({
            blockHash: receipt.blockHash,
            includeTransactions: false,
          });
          await this.recordWatch(watch, receipt, {
            number: block.number,
            hash: block.hash,
            timestamp: block.timestamp,
          });
        }
        this.lookedUp.add(watch.tx_hash);
      });
    }
  }

  /**
   * Every receipt of a block in one call, when the block holds several of ours; null when the node does not offer
   * `eth_getBlockReceipts` (they are then read one by one).
   */
  private async blockReceipts(blockHash: Hex): Promise<Map<string, TransactionReceipt> | null> {
    if (!this.blockReceiptsSupported) return null;
    try {
      const raw = await this.options.client.request({ method: 'eth_getBlockReceipts', params: [blockHash] });
      return new Map(
        (raw ?? []).map((receipt) => [receipt.transactionHash.toLowerCase(), formatTransactionReceipt(receipt)]),
      );
    } catch (error) {
      const unsupported =
        error instanceof BaseError &&
        error.walk((cause) => cause instanceof MethodNotFoundRpcError || cause instanceof MethodNotSupportedRpcError);
      if (unsupported) {
        this.blockReceiptsSupported = false;
        this.options.log?.warn(
          `${this.options.network.caip2}: the node has no eth_getBlockReceipts; receipts are read one by one`,
        );
      }
      return null;
    }
  }

  private async found(
    found: Watched[],
    hash: Hex,
    block: { number: bigint; hash: string; timestamp: bigint },
    head: bigint,
    known: TransactionReceipt | undefined,
  ): Promise<void> {
    const receipt = known ?? (await receiptOrNull(this.options.client, hash));
    for (const item of found) {
      if (!receipt || receipt.blockHash !== block.hash) {
        // The node served the block but not its receipt (a lagging node behind a load balancer): look it up on its own.
        if (item.kind === 'watch') this.lookedUp.delete(item.watch.tx_hash);
        else this.lastChecked.delete(item.transaction.id);
      } else if (item.kind === 'relayed') await this.options.relayer.recordInclusion(item.transaction, receipt, head);
      else await this.recordWatch(item.watch, receipt, block);
    }
  }

  /** One transaction's trouble (a node error, a row another process changed) is reported and does not hold up the rest. */
  private async guarded(what: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.options.log?.warn(`following ${what} on ${this.options.network.caip2} failed: ${(error as Error).message}`);
    }
  }

  private async recordWatch(
    watch: ChainWatch,
    receipt: TransactionReceipt,
    block: { number: bigint; hash: string; timestamp: bigint },
  ): Promise<void> {
    const notBefore = BigInt(Math.floor(watch.not_before.getTime() / 1000));
    const reason = receipt.status !== 'success' ? 'reverted' : block.timestamp < notBefore ? MINED_BEFORE_OPTION : null;
    await recordWatchInclusion(this.options.db, watch, { number: block.number, hash: block.hash }, reason);
  }

  /** Makes final what sits at the network's depth on the canonical chain; what a reorg removed is looked for again. */
  private async finishDeepEnough(head: bigint): Promise<void> {
    const { db, network, relayer, onFinal } = this.options;
    const [relayed, watches] = await Promise.all([
      openTransactionsWithHashes(db, network.caip2, relayer.address),
      openWatches(db, network.caip2),
    ]);
    await pMap(
      relayed,
      (transaction) => {
        const { receipt_block_number: number, receipt_block_hash: hash } = transaction;
        if (number === null || hash === null) return;
        return this.guarded(`transaction ${transaction.id}`, async () => {
          const canonical = await this.canonicalAtDepth(BigInt(number), head);
          if (canonical === null) return;
          if (canonical === hash) await relayer.finishIncluded(transaction);
          else await relayer.reorgedOut(transaction);
        });
      },
      { concurrency: CONCURRENCY },
    );
    await pMap(
      watches,
      (watch) => {
        const { block_number: number, block_hash: hash } = watch;
        if (number === null || hash === null) return;
        return this.guarded(`transaction ${watch.tx_hash}`, async () => {
          const canonical = await this.canonicalAtDepth(BigInt(number), head);
          if (canonical === null) return;
          if (canonical !== hash) await this.watchAgain(watch);
          else
            await finishWatch(
              db,
              watch,
              { status: watch.failure_reason ? 'failed' : 'confirmed', reason: watch.failure_reason },
              onFinal,
            );
        });
      },
      { concurrency: CONCURRENCY },
    );
  }

  /** The canonical hash at `number` once it is deep enough, else null; a block not read yet is read once. */
  private async canonicalAtDepth(number: bigint, head: bigint): Promise<string | null> {
    if (head - number + 1n < this.depth) return null;
    const known = this.recent.get(number);
    if (known !== undefined) return known;
    return memoised(this.reading, number, () =>
      this.options.client.getBlock({ blockNumber: number, includeTransactions: false }).then((block) => block.hash),
    );
  }

  private async expireWatches(): Promise<void> {
    const { db, network, clock, onFinal } = this.options;
    const now = clock.now();
    for (const watch of await openWatches(db, network.caip2)) {
      if (watch.block_hash !== null || watch.deadline.getTime() > now.getTime()) continue;
      await this.guarded(`transaction ${watch.tx_hash}`, () =>
        finishWatch(db, watch, { status: 'expired', reason: `not mined by ${watch.deadline.toISOString()}` }, onFinal),
      );
    }
  }

  /**
   * Transactions the relayer recorded but did not send (a crash in between), and sent ones that no block has held
   * for a while (dropped by the node, stuck on a low fee, or their nonce taken), are checked on their own, each at
   * most once per few blocks.
   */
  private async checkStragglers(relayed: OpenTransaction[]): Promise<void> {
    const now = Date.now();
    const patienceMs = Math.max(3 * this.options.network.blockTimeMs, 5_000);
    for (const transaction of relayed) {
      if (transaction.receipt_block_number !== null) continue;
      const since = (transaction.last_broadcast_at ?? transaction.created_at).getTime();
      const checked = this.lastChecked.get(transaction.id) ?? 0;
      if (now - since < patienceMs || now - checked < patienceMs) continue;
      this.lastChecked.set(transaction.id, now);
      await this.guarded(`transaction ${transaction.id}`, () => this.options.relayer.check(transaction));
    }
  }

  /**
   * The chain now ends at or below `number` on another branch: finds the highest block both share, forgets what
   * was known above it, and puts what was in the dropped blocks back to pending.
   */
  private async rewindTo(number: bigint, relayed: OpenTransaction[], watches: ChainWatch[]): Promise<void> {
    let fork = number;
    while (this.recent.has(fork)) {
      const block = await this.options.client.getBlock({ blockNumber: fork, includeTransactions: false });
      if (block.hash === this.recent.get(fork)) break;
      fork -= 1n;
    }
    for (const known of [...this.recent.keys()]) if (known > fork) this.recent.delete(known);
    const above = (block: string | null) => block !== null && BigInt(block) > fork;
    for (const transaction of relayed.filter((transaction) => above(transaction.receipt_block_number))) {
      await this.guarded(`transaction ${transaction.id}`, () => this.options.relayer.reorgedOut(transaction));
    }
    for (const watch of watches.filter((watch) => above(watch.block_number))) {
      await this.guarded(`transaction ${watch.tx_hash}`, () => this.watchAgain(watch));
    }
    this.lastRead = fork;
  }

  private remember(number: bigint, hash: string): void {
    this.recent.set(number, hash);
    this.recent.delete(number - this.depth - EXTRA_REMEMBERED_BLOCKS);
  }
}
