import { type Address, hexToBigInt, numberToHex, type PublicClient, pad } from 'viem';
import type { Db } from '../../db/database.ts';
import { newId } from '../../ids.ts';
import type { Logger } from '../../log.ts';
import type { NetworkInfo } from '../registry.ts';
import { isTokenTransfer, type RawLog, TRANSFER_TOPIC } from './deposits/depositScanner.ts';
import { NativeTransferReader } from './deposits/nativeTransfers.ts';

/**
 * Blocks per step: each is traced for the native coin (five to a request), and one `eth_getLogs` reads them all.
 * Few, because the step runs in the network's follower pass after the deposit scanner's, and only once that has read
 * every block at depth: a long one would hold back the next deposit read, where a payment waits, while an inflow
 * waits for its judgement for minutes anyway. Ten a pass still keeps up with a block a second.
 */
const BLOCKS_PER_STEP = 10n;

/**
 * Follows every transfer into the collector of one EVM network at depth (each listed token's `Transfer` logs naming
 * it as recipient, and the native coin its transactions' traces move to it) and stores each in `collector_inflows`,
 * once per log, to be judged against the service's records (`judge`): nothing reaches the collector unrecorded.
 * The read position is a row moved only from the value read, so two followers read a range twice at most.
 */
export class CollectorInflowFollower {
  private readonly depth: bigint;
  private readonly native: NativeTransferReader;
  private readonly collector: string;

  constructor(
    private readonly options: {
      db: Db;
      network: NetworkInfo;
      client: PublicClient;
      collector: Address;
      log?: Logger;
    },
  ) {
    this.depth = BigInt(Math.max(options.network.confirmations, 1));
    this.native = new NativeTransferReader(options);
    this.collector = options.collector.toLowerCase();
  }

  /** Reads the blocks that reached depth since the last step, given the chain's head; the number of inflows found. */
  async step(head: bigint): Promise<number> {
    const { db, network } = this.options;
    const atDepth = head - this.depth + 1n;
    const cursor = await db
      .selectFrom('collector_inflow_cursors')
      .select('next_block')
      .where('chain', '=', network.caip2)
      .executeTakeFirst();
    if (!cursor) {
      // What reached the collector before the service followed it is in the ledger already (funding, opening balances).
      await db
        .insertInto('collector_inflow_cursors')
        .values({ chain: network.caip2, next_block: atDepth + 1n })
        .onConflict((conflict) => conflict.column('chain').doNothing())
        .execute();
      return 0;
    }
    const from = BigInt(cursor.next_block);
    if (from > atDepth) return 0;
    const to = atDepth < from + BLOCKS_PER_STEP - 1n ? atDepth : from + BLOCKS_PER_STEP - 1n;
    const inflows = [...(await this.tokenInflows(from, to)), ...(await this.nativeInflows(from, to))];
    await db.transaction().execute(async (trx) => {
      if (inflows.length) {
        await trx
          .insertInto('collector_inflows')
          .values(inflows.map((inflow) => ({ id: newId('inf'), ...inflow })))
          .onConflict((conflict) => conflict.columns(['chain', 'tx_hash', 'log_index']).doNothing())
          .execute();
      }
      await trx
        .updateTable('collector_inflow_cursors')
        .set({ next_block: to + 1n, updated_at: new Date() })
        .where('chain', '=', network.caip2)
        .where('next_block', '=', from.toString())
        .execute();
    });
    return inflows.length;
  }

  /** Transfers of the network's listed tokens to the collector; a token it does not list is no value it holds. */
  private async tokenInflows(from: bigint, to: bigint) {
    const { network, client } = this.options;
    const listed = new Map(
      network.tokens.flatMap((token) => (token.address ? [[token.address.toLowerCase(), token.caip19] as const] : [])),
    );
    if (!listed.size) return [];
    const logs = (await client.request({
      method: 'eth_getLogs',
      params: [
        {
          fromBlock: numberToHex(from),
          toBlock: numberToHex(to),
          address: [...listed.keys()] as Address[],
          topics: [TRANSFER_TOPIC, null, pad(this.collector as Address)],
        },
      ],
    })) as unknown as RawLog[];
    return logs.filter(isTokenTransfer).flatMap((log) => {
      const asset = listed.get(log.address.toLowerCase());
      if (!asset) return [];
      return [
        {
          chain: network.caip2,
          tx_hash: log.transactionHash.toLowerCase(),
          log_index: Number(hexToBigInt(log.logIndex)),
          asset,
          sender: `${network.caip2}:0x${(log.topics[1] as string).slice(26).toLowerCase()}`,
          amount: hexToBigInt(log.data),
          block_number: hexToBigInt(log.blockNumber),
        },
      ];
    });
  }

  /** The native coin moved to the collector and kept there, where the network lists its native coin. */
  private async nativeInflows(from: bigint, to: bigint) {
    const { network } = this.options;
    const native = network.tokens.find((token) => token.method === 'native');
    if (!native) return [];
    const transfers = await this.native.transfersTo(new Map([[this.collector, 'collector']]), from, to, {
      atDepth: true,
    });
    return transfers.map((transfer) => ({
      chain: network.caip2,
      tx_hash: transfer.txHash,
      log_index: transfer.logIndex,
      asset: native.caip19,
      sender: `${network.caip2}:${transfer.from}`,
      amount: transfer.amount,
      block_number: transfer.blockNumber,
    }));
  }
}
