import { setMaxListeners } from 'node:events';
import {
  BaseError,
  type Hex,
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  numberToHex,
  type PublicClient,
} from 'viem';
import pMap from 'p-map';
import type { Logger } from '../../../log.ts';
import type { NetworkInfo } from '../../registry.ts';
import { transportFailure } from '../../rpcEndpoints.ts';
import { type CallFrame, nativeCredits, TRANSACTION_VALUE_INDEX } from './nativeCredits.ts';

/** A transfer of an ERC-20 token or the native coin to a deposit address, with the block it is in. */
export interface DepositTransfer {
  chain: string;
  paymentId: string;
  address: string;
  /** The token contract that logged the transfer, lower case. */
  token: string;
  from: string;
  amount: bigint;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  /** When its block was made: a transfer in a block made before its payment's expiry is in time, however late read. */
  blockTime: Date;
  /** The operator's address screening blocks its sender: its value is held, never credited to the payment. */
  senderBlocked?: boolean;
}

/** Blocks whose call traces go in one JSON-RPC batch. */
const TRACED_BLOCKS_PER_REQUEST = 5;

/**
 * Trace requests of one step under way at once: a step's ten take the time of three, which keeps a follower
 * behind a slow or lossy node catching up, without flooding the node.
 */
const TRACE_REQUESTS_AT_ONCE = 4;

/** How long a node that said it has no trace method is read without traces before it is asked again. */
const TRACES_RETRY_MS = 10 * 60_000;

/** How a deposit of the native coin names its token: the zero address, as the forwarder's sweep takes it. */
export const NATIVE_TOKEN = '0x0000000000000000000000000000000000000000';

/** A block's time: its timestamp, in seconds. */
function blockTimeOf(timestamp: bigint): Date {
  return new Date(Number(timestamp) * 1000);
}

/** The numbers `from` to `to`, both included. */
function blockNumbers(from: bigint, to: bigint): bigint[] {
  return Array.from({ length: Number(to - from + 1n) }, (_, index) => from + BigInt(index));
}

/** The node (every URL of the network) does not serve the method: asking again will not help. */
function isMethodUnavailable(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((cause) => cause instanceof MethodNotFoundRpcError || cause instanceof MethodNotSupportedRpcError) !==
      null
  );
}
/**
 * Reads the native coin that reached watched addresses (a payment's deposit address, the collector) block by block:
 * by call traces where the node serves them, else each block's plain transfers. `paymentOf` maps each watched
 * address (lower case) to what the transfers found there are handed over for.
 */
export class NativeTransferReader {
  /** When to ask for call traces again after the node said it has no such method (epoch ms). */
  private tracesRefusedUntil = 0;
  /** Why the last range was read without traces, so a lasting failure is logged once. */
  private traceFailure: string | undefined;
  /** The first block of the last range whose traces failed. */
  private untracedFrom: bigint | undefined;
  /**
   * What each block at depth of the range last asked for paid, once traced: when a request of the range fails, the
   * range is asked again and only the blocks not yet traced are traced, instead of the whole range each time (on a
   * lossy node, one of a step's ten requests failing is common).
   */
  private readonly tracedAtDepth = new Map<bigint, DepositTransfer[]>();

  constructor(private readonly options: { network: NetworkInfo; client: PublicClient; log?: Logger }) {}

  /**
   * Native-coin transfers to the watched addresses in the blocks `from` to `to`, one call per block however many addresses
   * are open (five to a request): each block's call traces (`debug_traceBlockByNumber`), which show the coin a
   * contract wallet forwards in an internal call as well as a plain transfer. Where the node cannot trace a block
   * (no such method, a state it no longer keeps, a transaction it could not trace), the range is read the plain way
   * instead (`plainTransfersTo`: a transaction's own value only), said in the log, so the follower never
   * stops on it; a contract's internal transfer in that range then pays nothing, and its coin stays at the address
   * until a sweep names the native coin. A node without the method is asked again after `TRACES_RETRY_MS`.
   * `atDepth`: the blocks are at the network's depth, where they no longer change, so a block traced is not traced
   * again when the range is asked again after a failure. An address opened since can have been paid in none of them:
   * it is watched before it is shown to anyone.
   */
  async transfersTo(
    paymentOf: Map<string, string>,
    from: bigint,
    to: bigint,
    { atDepth = false }: { atDepth?: boolean } = {},
  ): Promise<DepositTransfer[]> {
    const { log, network } = this.options;
    for (const number of this.tracedAtDepth.keys()) {
      if (!atDepth || number < from || number > to) this.tracedAtDepth.delete(number);
    }
    if (Date.now() >= this.tracesRefusedUntil) {
      try {
        const transfers = await this.tracedTransfersTo(paymentOf, from, to, atDepth);
        this.traceFailure = undefined;
        return transfers;
      } catch (error) {
        if (transportFailure(error)) throw error;
        const unavailable = isMethodUnavailable(error);
        if (unavailable) this.tracesRefusedUntil = Date.now() + TRACES_RETRY_MS;
        else if (this.traceFailure === undefined && this.untracedFrom !== from) {
          // Once more on the next step before reading the range without traces: the node may have been briefly behind.
          this.untracedFrom = from;
          throw error;
        }
        const reason = unavailable
          ? 'the node serves no call traces'
          : error instanceof BaseError
            ? error.details || error.shortMessage
            : (error as Error).message;
        if (this.traceFailure !== reason) {
          log?.warn(
            `blocks ${from} to ${to} of ${network.caip2} read without call traces (${reason}): native coin a contract wallet sent to a deposit address there is not seen, only plain transfers`,
          );
        }
        this.traceFailure = reason;
      }
    }
    return this.plainTransfersTo(paymentOf, from, to);
  }

  private async tracedTransfersTo(
    paymentOf: Map<string, string>,
    from: bigint,
    to: bigint,
    atDepth: boolean,
  ): Promise<DepositTransfer[]> {
    const numbers = blockNumbers(from, to).filter((number) => !this.tracedAtDepth.has(number));
    // A few blocks to a request: a node caps the size of a batch's answer, and a busy block's traces are large.
    const requests = Array.from({ length: Math.ceil(numbers.length / TRACED_BLOCKS_PER_REQUEST) }, (_, index) =>
      numbers.slice(index * TRACED_BLOCKS_PER_REQUEST, (index + 1) * TRACED_BLOCKS_PER_REQUEST),
    );
    // A signal of its own keeps each request its own batch (viem batches the calls of a tick that share a signal);
    // once one fails, requests above depth are called off, since the range is read again whole. viem listens to it
    // twice per call and once per HTTP request, past Node's warning mark of 10 listeners.
    const controllers = requests.map(() => {
      const controller = new AbortController();
      setMaxListeners(3 * TRACED_BLOCKS_PER_REQUEST, controller.signal);
      return controller;
    });
    try {
      const found = await pMap(
        requests,
        async (blocks, index) => {
          const { signal } = controllers[index] as AbortController;
          const traced = await Promise.allSettled(blocks.map((number) => this.tracedBlock(paymentOf, number, signal)));
          if (atDepth) {
            traced.forEach((result, position) => {
              if (result.status === 'fulfilled') this.tracedAtDepth.set(blocks[position] as bigint, result.value);
            });
          }
          const failed = traced.find((result) => result.status === 'rejected');
          if (failed) throw failed.reason;
          return traced.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
        },
        // At depth every request is made though one failed: what the others trace is kept for the next attempt.
        { concurrency: TRACE_REQUESTS_AT_ONCE, stopOnError: !atDepth },
      ).catch((error: unknown) => {
        throw error instanceof AggregateError ? error.errors[0] : error;
      });
      if (!atDepth) return found.flat();
      const transfers = blockNumbers(from, to).flatMap((number) => this.tracedAtDepth.get(number) ?? []);
      this.tracedAtDepth.clear();
      return transfers;
    } finally {
      for (const controller of controllers) controller.abort();
    }
  }

  /** The native coin one block's traces moved to open addresses; throws where the node could not trace it whole. */
  private async tracedBlock(
    paymentOf: Map<string, string>,
    blockNumber: bigint,
    signal: AbortSignal,
  ): Promise<DepositTransfer[]> {
    const { client, network } = this.options;
    const traces = await client.request<{
      Parameters: [Hex, { tracer: 'callTracer' }];
      ReturnType: { txHash?: string; result?: CallFrame; error?: string }[];
    }>(
      { method: 'debug_traceBlockByNumber', params: [numberToHex(blockNumber), { tracer: 'callTracer' }] },
      { signal },
    );
    const credits = traces.flatMap((trace, position) => {
      if (!trace.result || typeof trace.result.type !== 'string') {
        throw new Error(
          `transaction ${trace.txHash ?? position} of block ${blockNumber} was not traced: ${trace.error}`,
        );
      }
      return nativeCredits(trace.result, (address) => paymentOf.has(address)).map((credit) => ({
        ...credit,
        position,
        txHash: trace.txHash,
      }));
    });
    if (!credits.length) return [];
    // Only a block with a credit needs its hash (and, from nodes whose traces do not name it, each transaction's).
    const block = await client.getBlock({ blockNumber });
    if (block.transactions.length !== traces.length) {
      throw new Error(`block ${blockNumber} changed between its traces and its read`);
    }
    return credits.map(
      (credit): DepositTransfer => ({
        chain: network.caip2,
        paymentId: paymentOf.get(credit.to) as string,
        address: credit.to,
        token: NATIVE_TOKEN,
        from: credit.from,
        amount: credit.amount,
        txHash: (credit.txHash ?? (block.transactions[credit.position] as string)).toLowerCase(),
        logIndex: credit.logIndex,
        blockNumber,
        blockHash: block.hash as string,
        blockTime: blockTimeOf(block.timestamp),
      }),
    );
  }

  /** Plain native-coin transfers (a transaction's own value) to open addresses: each block read whole. */
  private async plainTransfersTo(paymentOf: Map<string, string>, from: bigint, to: bigint): Promise<DepositTransfer[]> {
    const { client, network } = this.options;
    const blocks = await Promise.all(
      blockNumbers(from, to).map((blockNumber) => client.getBlock({ blockNumber, includeTransactions: true })),
    );
    const matches = blocks.flatMap((block) =>
      block.transactions.flatMap((transaction) => {
        const paymentId = transaction.to ? paymentOf.get(transaction.to.toLowerCase()) : undefined;
        return paymentId && transaction.value > 0n ? [{ block, transaction, paymentId }] : [];
      }),
    );
    const receipts = await Promise.all(
      matches.map(({ transaction }) => client.getTransactionReceipt({ hash: transaction.hash })),
    );
    return matches.flatMap(({ block, transaction, paymentId }, index) =>
      receipts[index]?.status === 'success'
        ? [
            {
              chain: network.caip2,
              paymentId,
              address: (transaction.to as string).toLowerCase(),
              token: NATIVE_TOKEN,
              from: transaction.from.toLowerCase(),
              amount: transaction.value,
              txHash: transaction.hash.toLowerCase(),
              logIndex: TRANSACTION_VALUE_INDEX,
              blockNumber: block.number as bigint,
              blockHash: block.hash as string,
              blockTime: blockTimeOf(block.timestamp),
            },
          ]
        : [],
    );
  }
}
