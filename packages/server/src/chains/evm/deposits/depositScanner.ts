import { type Address, type Hex, hexToBigInt, numberToHex, type PublicClient, pad, toEventSelector } from 'viem';
import { sql, type Transaction } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { Database } from '../../../db/schema.ts';
import { withDepositTables } from '../../../deposits/depositTables.ts';
import type { Logger } from '../../../log.ts';
import type { NetworkInfo } from '../../registry.ts';
import { type DepositTransfer, NativeTransferReader } from './nativeTransfers.ts';

/** topic0 of the ERC-20 `Transfer(address indexed from, address indexed to, uint256 value)` event. */
export const TRANSFER_TOPIC: Hex = toEventSelector('Transfer(address,address,uint256)');

/** Deposit addresses per `eth_getLogs` call: a topic list this long stays well under nodes' request limits. */
const ADDRESSES_PER_CALL = 500;

/** Blocks per `eth_getLogs` call; public nodes commonly refuse ranges over 1,000 or so. */
const BLOCKS_PER_CALL = 1_000n;

/**
 * Once the open addresses need more than one call, a step over at most this many blocks reads every Transfer of the
 * network's tokens in one call instead (`address` filter, the recipient checked here): one call per step however
 * many addresses are open, at the price of the other transfers of those tokens in so few blocks. Transfers of
 * other tokens are read later, many blocks at once (`RECIPIENTS_CATCH_UP_BLOCKS`).
 */
const WHOLE_TOKEN_LOGS_MAX_BLOCKS = 20n;

/**
 * How far, in blocks, the transfers of tokens the network does not list may fall behind while reading only the
 * listed tokens' logs: then one call per 500 open addresses reads them all, up to 1,000 blocks at once.
 */
const RECIPIENTS_CATCH_UP_BLOCKS = 100n;

/** Blocks per step while native-coin deposits are watched: each block is traced (or read whole), one call per block. */
const BLOCKS_PER_NATIVE_STEP = 50n;

/**
 * Where a network's first scan starts, in blocks below the deepest block at depth: the first quote on the network
 * is made moments before, when a checkout page shows it, and a buyer cannot pay before it is shown.
 */
const FIRST_SCAN_LOOKBACK = 256n;

/** A block's time: its timestamp, in seconds. */
function blockTimeOf(timestamp: bigint): Date {
  return new Date(Number(timestamp) * 1000);
}

interface OpenAddress {
  address: string;
  payment_id: string;
  native: boolean;
}

/** What a deposit means for its payment, applied in one database transaction; called at most once per transfer. */
export type DepositHandler = (trx: Transaction<Database>, transfer: DepositTransfer) => Promise<void>;

export interface RawLog {
  address: string;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: string;
  /** Named by nodes that follow the 2025 execution API (anvil, geth 1.16 on); else read from the block. */
  blockTimestamp?: Hex;
  transactionHash: string;
  logIndex: Hex;
  removed?: boolean;
}

/** An address in a 32-byte topic: 12 zero bytes, then the address. */
const ADDRESS_TOPIC = /^0x0{24}[0-9a-fA-F]{40}$/;

/**
 * A Transfer log shaped as an ERC-20 token writes it: both addresses indexed and a 32-byte amount above zero. Any
 * contract can log anything to a public address; a log of another shape is no transfer of ours to record.
 */
export function isTokenTransfer(log: RawLog): boolean {
  return (
    !log.removed &&
    log.topics.length === 3 &&
    ADDRESS_TOPIC.test(log.topics[1] as string) &&
    ADDRESS_TOPIC.test(log.topics[2] as string) &&
    /^0x[0-9a-fA-F]{64}$/.test(log.data) &&
    hexToBigInt(log.data) > 0n
  );
}

/** How far a network's deposit follower has read: the last block read at depth, and when that position last moved. */
export interface DepositReadPosition {
  chain: string;
  readUpTo: bigint;
  movedAt: Date;
}

/**
 * Every network's read position as its cursor stores it (`next_block` is the next block to read at depth); a network
 * has none until a deposit address was first open on it.
 */
export async function depositReadPositions(db: Db): Promise<DepositReadPosition[]> {
  const rows = await withDepositTables(db)
    .selectFrom('evm_deposit_cursors')
    .select(['chain', 'next_block', 'updated_at'])
    .execute();
  return rows.map((row) => ({ chain: row.chain, readUpTo: BigInt(row.next_block) - 1n, movedAt: row.updated_at }));
}

/**
 * Finds ERC-20 transfers to every open deposit address of one network: one `eth_getLogs` per range of new blocks
 * at the network's depth (per 500 addresses), whose `to` topic is any open address, whatever the token. What is
 * recorded as a deposit is only ever read at depth, so a reorg the depth covers never reaches one; blocks above the
 * depth are only looked at to tell a payment that its transfer is on its way (`onSeen`). The read positions are a
 * row in PostgreSQL, moved only from the value read, so two followers of one network for a moment read a range
 * twice at most, and a deposit row's key (its log) makes the second read change nothing.
 */
export class DepositScanner {
  private readonly depth: bigint;
  private readonly native: NativeTransferReader;

  constructor(
    private readonly options: {
      db: Db;
      network: NetworkInfo;
      client: PublicClient;
      onDeposit: DepositHandler;
      /** A transfer in a block above depth (networks deeper than one block); may be handed over more than once. */
      onSeen?: DepositHandler;
      /**
       * Whether the operator's address screening blocks a transfer's sender, asked before the transfer's transaction
       * opens (a screening service may take a while); a refusal to answer ends the step, which is read again.
       */
      screenSender?: (transfer: DepositTransfer) => Promise<boolean>;
      clock: { now(): Date };
      log?: Logger;
    },
  ) {
    this.depth = BigInt(Math.max(options.network.confirmations, 1));
    this.native = new NativeTransferReader(options);
  }

  /**
   * Reads what reached depth since the last step, given the chain's head, and, on a network deeper than one block,
   * what the blocks above depth brought since it last looked (`onSeen`); `busy` while any address is open, `caughtUp`
   * once every block at depth is read.
   */
  async step(head: bigint): Promise<{ busy: boolean; logCalls: number; caughtUp: boolean }> {
    const { network, clock } = this.options;
    const db = withDepositTables(this.options.db);
    const atDepth = head - this.depth + 1n;
    const open = await this.openAddresses(clock.now());
    const cursor = await db
      .selectFrom('evm_deposit_cursors')
      .select(['next_block', 'seen_next_block', 'recipients_next_block'])
      .where('chain', '=', network.caip2)
      .executeTakeFirst();
    if (!cursor) {
      if (!open.length) return { busy: false, logCalls: 0, caughtUp: true };
      const start = atDepth > FIRST_SCAN_LOOKBACK ? atDepth - FIRST_SCAN_LOOKBACK : 0n;
      await db
        .insertInto('evm_deposit_cursors')
        .values({ chain: network.caip2, next_block: start })
        .onConflict((conflict) => conflict.column('chain').doNothing())
        .execute();
      return this.step(head);
    }
    let logCalls = 0;
    const from = BigInt(cursor.next_block);
    let next = from;
    let recipientsNext = cursor.recipients_next_block === null ? null : BigInt(cursor.recipients_next_block);
    if (from <= atDepth) {
      const read = await this.readBlocks(open, from, atDepth, this.options.onDeposit);
      logCalls += read.logCalls;
      next = read.to + 1n;
      // Only an expired payment's sweep needs the time read up to: one call more per step while one waits for it.
      const readThrough = (await this.expiredPaymentWaits(clock.now()))
        ? await this.blockTime({ blockNumber: read.to })
        : undefined;
      // Transfers of any token keep up while every read names the recipients; one of the listed tokens only leaves
      // them behind, at the first block it read, for the later read to catch up.
      const keptUp = (recipientsNext ?? from) === from;
      recipientsNext = read.everyToken && keptUp ? null : (recipientsNext ?? from);
      // Moved only from where this step started: a second follower that read the range already leaves it as it is.
      await db
        .updateTable('evm_deposit_cursors')
        .set({
          next_block: next,
          recipients_next_block: recipientsNext,
          ...(readThrough ? { read_through: readThrough } : {}),
          updated_at: new Date(),
        })
        .where('chain', '=', network.caip2)
        .where('next_block', '=', from.toString())
        .execute();
    }
    const { onSeen } = this.options;
    if (onSeen && this.depth > 1n && open.length) {
      const seenFrom = cursor.seen_next_block === null ? atDepth + 1n : BigInt(cursor.seen_next_block);
      // Only blocks above depth, and no more than one step's worth: older ones reach depth soon and are read there.
      const span = open.some((row) => row.native) ? BLOCKS_PER_NATIVE_STEP : BLOCKS_PER_CALL;
      const lowest = [atDepth + 1n, head - span + 1n, seenFrom].reduce((a, b) => (a > b ? a : b));
      if (lowest <= head) {
        const read = await this.readBlocks(open, lowest, head, onSeen);
        logCalls += read.logCalls;
        await db
          .updateTable('evm_deposit_cursors')
          .set({ seen_next_block: read.to + 1n })
          .where('chain', '=', network.caip2)
          .where(sql<boolean>`seen_next_block IS NOT DISTINCT FROM ${cursor.seen_next_block}`)
          .execute();
      }
    }
    if (recipientsNext !== null && next - recipientsNext >= RECIPIENTS_CATCH_UP_BLOCKS) {
      logCalls += await this.catchUpRecipients(recipientsNext, next, head);
    }
    return { busy: open.length > 0, logCalls, caughtUp: next > atDepth };
  }

  /**
   * Whether an unpaid payment with a deposit address on the network is past its expiry: the expiry sweep leaves it
   * until the reads at depth passed its expiry (`read_through`).
   */
  private async expiredPaymentWaits(now: Date): Promise<boolean> {
    const waiting = await withDepositTables(this.options.db)
      .selectFrom('payments')
      .select('payments.id')
      .where('payments.status', '=', 'requires_action')
      .where('payments.expires_at', '<=', now)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('evm_deposit_quotes as quote')
            .select('quote.payment_id')
            .whereRef('quote.payment_id', '=', 'payments.id')
            .where('quote.chain', '=', this.options.network.caip2),
        ),
      )
      .limit(1)
      .executeTakeFirst();
    return waiting !== undefined;
  }

  /** When a block was made. */
  private async blockTime(block: { blockNumber: bigint } | { blockHash: Hex }): Promise<Date> {
    return blockTimeOf((await this.options.client.getBlock(block)).timestamp);
  }

  /** When a block was made, read once into `known`. */
  private blockTimeOnce(known: Map<string, Promise<Date>>, blockHash: Hex): Promise<Date> {
    let time = known.get(blockHash);
    if (!time) {
      time = this.blockTime({ blockHash });
      known.set(blockHash, time);
    }
    return time;
  }

  /** The deposit addresses of the network watched at `at` (and later), and whether each takes the native coin. */
  private openAddresses(at: Date): Promise<OpenAddress[]> {
    const { network } = this.options;
    const nativeAsset = network.tokens.find((token) => token.method === 'native')?.caip19 ?? '';
    return withDepositTables(this.options.db)
      .selectFrom('evm_deposit_quotes')
      .select(['address', 'payment_id', sql<boolean>`bool_or(asset = ${nativeAsset})`.as('native')])
      .where('chain', '=', network.caip2)
      .where('watch_until', '>', at)
      .groupBy(['address', 'payment_id'])
      .execute();
  }

  /**
   * Reads the transfers of any token to the addresses open over the blocks `from` to before `next` (the at-depth
   * read's position), up to 1,000 blocks at once, naming the recipients: what reading only the listed tokens' logs
   * left out (a token the network does not list, recorded for the operator). Returns the `eth_getLogs` calls made.
   */
  private async catchUpRecipients(from: bigint, next: bigint, head: bigint): Promise<number> {
    const { network, clock } = this.options;
    const to = next - 1n < from + BLOCKS_PER_CALL - 1n ? next - 1n : from + BLOCKS_PER_CALL - 1n;
    // Addresses whose watch ended since the first of these blocks was made were open then.
    const since = new Date(clock.now().getTime() - Number(head - from + 1n) * network.blockTimeMs);
    const read = await this.readTokenTransfers(await this.openAddresses(since), from, to, this.options.onDeposit, {
      listedOnly: false,
    });
    // Kept up once the read reached the at-depth position as it is now: another follower may have moved it since.
    await withDepositTables(this.options.db)
      .updateTable('evm_deposit_cursors')
      .set({
        recipients_next_block: sql`CASE WHEN ${`${to + 1n}`}::bigint >= next_block THEN NULL ELSE ${`${to + 1n}`}::bigint END`,
      })
      .where('chain', '=', network.caip2)
      .where('recipients_next_block', '=', from.toString())
      .execute();
    return read.logCalls;
  }

  /**
   * Hands every transfer to an open address in the blocks `from` to at most `to` to `handler`, each in its own
   * database transaction; returns the last block read (a step reads at most 50 blocks while the native coin is
   * watched, 1,000 otherwise), the `eth_getLogs` calls made, and whether the logs of every token were read.
   */
  private async readBlocks(
    open: readonly OpenAddress[],
    from: bigint,
    upTo: bigint,
    handler: DepositHandler,
  ): Promise<{ to: bigint; logCalls: number; everyToken: boolean }> {
    const nativeOpen = open.filter((row) => row.native);
    const span = nativeOpen.length ? BLOCKS_PER_NATIVE_STEP : BLOCKS_PER_CALL;
    const to = upTo < from + span - 1n ? upTo : from + span - 1n;
    const listedOnly =
      open.length > ADDRESSES_PER_CALL &&
      to - from < WHOLE_TOKEN_LOGS_MAX_BLOCKS &&
      this.options.network.tokens.some((token) => token.address);
    const { logCalls } = await this.readTokenTransfers(open, from, to, handler, { listedOnly });
    if (nativeOpen.length) {
      const paymentOf = new Map(nativeOpen.map((row) => [row.address.toLowerCase(), row.payment_id]));
      const atDepth = handler === this.options.onDeposit;
      for (const transfer of await this.native.transfersTo(paymentOf, from, to, { atDepth })) {
        await this.handOver(handler, transfer);
      }
    }
    return { to, logCalls, everyToken: !listedOnly };
  }

  /**
   * Token transfers to the open addresses in the blocks `from` to `to`, each handed to `handler`: the recipients
   * named, 500 a call, or (`listedOnly`) every transfer of the network's listed tokens in one call.
   */
  private async readTokenTransfers(
    open: readonly OpenAddress[],
    from: bigint,
    to: bigint,
    handler: DepositHandler,
    { listedOnly }: { listedOnly: boolean },
  ): Promise<{ logCalls: number }> {
    if (!open.length) return { logCalls: 0 };
    const paymentOf = new Map(open.map((row) => [row.address.toLowerCase(), row.payment_id]));
    const addresses = [...paymentOf.keys()];
    const batches = listedOnly
      ? [{ contracts: this.options.network.tokens.flatMap((token) => (token.address ? [token.address] : [])) }]
      : Array.from({ length: Math.ceil(addresses.length / ADDRESSES_PER_CALL) }, (_, index) => ({
          recipients: addresses.slice(index * ADDRESSES_PER_CALL, (index + 1) * ADDRESSES_PER_CALL),
        }));
    // Read once per block, for nodes whose logs do not carry their block's time.
    const blockTimes = new Map<string, Promise<Date>>();
    for (const batch of batches) {
      for (const log of await this.transferLogs(batch, from, to)) {
        const transfer = await this.transferOf(log, paymentOf, blockTimes);
        // A failure ends the step before the read position moves, so the range is read again on the next one.
        if (transfer) await this.handOver(handler, transfer);
      }
    }
    return { logCalls: batches.length };
  }

  /** Hands one transfer to `handler` in a transaction of its own, its sender screened before the transaction opens. */
  private async handOver(handler: DepositHandler, transfer: DepositTransfer): Promise<void> {
    const senderBlocked = (await this.options.screenSender?.(transfer)) ?? false;
    const screened = senderBlocked ? { ...transfer, senderBlocked } : transfer;
    await this.options.db.transaction().execute((trx) => handler(trx, screened));
  }

  /** Transfer logs in the blocks `from` to `to`: to the given recipients, or of the given token contracts. */
  private async transferLogs(
    filter: { recipients: string[] } | { contracts: string[] },
    from: bigint,
    to: bigint,
  ): Promise<RawLog[]> {
    const range = { fromBlock: numberToHex(from), toBlock: numberToHex(to) };
    const logs = (await this.options.client.request({
      method: 'eth_getLogs',
      params: [
        'recipients' in filter
          ? { ...range, topics: [TRANSFER_TOPIC, null, filter.recipients.map((address) => pad(address as Address))] }
          : { ...range, address: filter.contracts as Address[], topics: [TRANSFER_TOPIC] },
      ],
    })) as unknown as RawLog[];
    return logs.filter(isTokenTransfer);
  }

  private async transferOf(
    log: RawLog,
    paymentOf: Map<string, string>,
    blockTimes: Map<string, Promise<Date>>,
  ): Promise<DepositTransfer | undefined> {
    const [, fromTopic, toTopic] = log.topics as [Hex, Hex, Hex];
    const address = `0x${toTopic.slice(26)}`.toLowerCase();
    const paymentId = paymentOf.get(address);
    if (!paymentId) return undefined;
    return {
      chain: this.options.network.caip2,
      paymentId,
      address,
      token: log.address.toLowerCase(),
      from: `0x${fromTopic.slice(26)}`.toLowerCase(),
      amount: hexToBigInt(log.data),
      txHash: log.transactionHash.toLowerCase(),
      logIndex: Number(hexToBigInt(log.logIndex)),
      blockNumber: hexToBigInt(log.blockNumber),
      blockHash: log.blockHash,
      blockTime:
        log.blockTimestamp === undefined
          ? await this.blockTimeOnce(blockTimes, log.blockHash as Hex)
          : blockTimeOf(hexToBigInt(log.blockTimestamp)),
    };
  }
}
