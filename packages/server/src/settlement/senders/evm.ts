import { type Address, getAddress } from 'viem';
import { parseAccountId } from '../../chains/caip.ts';
import { readBalances } from '../../chains/evm/index.ts';
import type { TokenInfo } from '../../chains/registry.ts';
import {
  type BatchRow,
  failBatch,
  liveEvmTransfer,
  lockOpenBatch,
  markBatchSent,
  SETTLEMENT_PURPOSE,
  settleBatch,
  settlementsHeld,
} from '../batches.ts';
import { transferCrashPoint } from '../crashPoint.ts';
import { evmTransferCall } from '../transfers.ts';
import type { SettlementSender, SettlementSenderContext } from './settlementSender.ts';

/** The transfer of the batch's amount to its destination. */
function settlementCall(token: TokenInfo, batch: Pick<BatchRow, 'destination' | 'amount'>) {
  const destination = parseAccountId(batch.destination);
  if (!destination) throw new Error(`destination ${batch.destination} is not a valid account`);
  return evmTransferCall(token, getAddress(destination.address) as Address, BigInt(batch.amount));
}

/** Settles on EVM networks through the relayer's journal. */
export class EvmSettlementSender implements SettlementSender {
  constructor(private readonly context: SettlementSenderContext) {}

  canSend(token: TokenInfo): boolean {
    return this.context.chains.network(token.chain)?.rpcUrl !== undefined;
  }

  async collectorHolds(token: TokenInfo): Promise<bigint> {
    const { services, chains } = this.context;
    const network = chains.network(token.chain);
    if (!network) throw new Error(`${token.chain} is not configured`);
    const balances = await readBalances(services.evm.clients.for(network), [services.evm.collector], [token]);
    return balances.of(services.evm.collector, token);
  }

  async drive(batch: BatchRow, token: TokenInfo): Promise<boolean> {
    const { db, services, clock } = this.context;
    const { relayer } = services.evm;
    // A transfer already journaled goes out even while the merchant is held: it holds a nonce of the collector.
    const journaled = await liveEvmTransfer(db, batch.id);
    if (!journaled && (await settlementsHeld(db, batch.merchant_id))) return false;
    // The chain is asked before the batch is locked (its destination and amount never change): the lock is held
    // only while the transfer is journaled, which asks nothing of the chain.
    const prepared = journaled
      ? null
      : await relayer.prepare({
          chain: token.chain,
          ...settlementCall(token, batch),
          purpose: SETTLEMENT_PURPOSE,
          paymentId: batch.id,
        });
    const next = await db.transaction().execute(async (trx) => {
      const locked = await lockOpenBatch(trx, batch.id);
      if (!locked) return null;
      const live = await liveEvmTransfer(trx, batch.id);
      if (live === 'failed') {
        await failBatch(trx, batch.id, 'the transfer failed on chain', clock.now());
        return null;
      }
      const landedHash = live?.status === 'confirmed' ? live.minedHash : null;
      if (landedHash) {
        // Confirmed before its outcome was applied with it (a transfer of an older version of the service).
        await markBatchSent(trx, batch.id, clock.now());
        return { landed: true, hash: landedHash } as const;
      }
      if (!live && (await settlementsHeld(trx, batch.merchant_id))) return null;
      // The relayer journals the signed transfer in its own transaction; this batch's row lock keeps any other
      // process from making a second one before the link below commits, and the lookup above finds it after a crash.
      const id = live?.id ?? (prepared ? (await relayer.recordPrepared(prepared)).id : null);
      if (!id) return null;
      await markBatchSent(trx, batch.id, clock.now());
      return { landed: false, id } as const;
    });
    if (!next) return false;
    if (next.landed) return settleBatch(db, this.context.announcer(), batch.id, next.hash);
    transferCrashPoint(this.context.crashAt, 'recorded');
    await relayer.broadcast(next.id);
    transferCrashPoint(this.context.crashAt, 'broadcast');
    return false;
  }
}
