import { parseAccountId } from '../../chains/caip.ts';
import type { TokenInfo } from '../../chains/registry.ts';
import { SolanaTransactionRejectedError } from '../../chains/solana/errors.ts';
import { readSolanaBalances } from '../../chains/solana/readSolanaBalances.ts';
import {
  type BatchRow,
  failBatch,
  liveSolanaTransfer,
  lockOpenBatch,
  markBatchSent,
  SETTLEMENT_PURPOSE,
  settleBatch,
  settlementsHeld,
} from '../batches.ts';
import { transferCrashPoint } from '../crashPoint.ts';
import { buildSolanaSettlementTransfer } from '../transfers.ts';
import type { SettlementSender, SettlementSenderContext } from './settlementSender.ts';

/** Settles SPL tokens on Solana networks through the Solana journal. */
export class SolanaSettlementSender implements SettlementSender {
  constructor(private readonly context: SettlementSenderContext) {}

  canSend(token: TokenInfo): boolean {
    return token.method === 'spl' && this.context.services.solana.networks.has(token.chain);
  }

  async collectorHolds(token: TokenInfo): Promise<bigint> {
    const { services } = this.context;
    const solana = services.solana.networks.get(token.chain);
    if (!solana) throw new Error(`no Solana RPC for ${token.chain}`);
    const owner = services.solana.collector.address;
    const balances = await readSolanaBalances(solana.rpc, [owner], [token.address]);
    return balances[owner]?.tokens[token.address] ?? 0n;
  }

  async drive(batch: BatchRow, token: TokenInfo): Promise<boolean> {
    const { db, services, clock } = this.context;
    const solana = services.solana.networks.get(token.chain);
    if (!solana) throw new Error(`no Solana sender for ${token.chain}`);
    // A transfer already journaled goes out even while the merchant is held; a new one waits until it is active.
    const journaled = await liveSolanaTransfer(db, batch.id);
    if (!journaled && (await settlementsHeld(db, batch.merchant_id))) return false;
    // Built before the batch is locked (its destination and amount never change): the lock is held only while the
    // transfer is journaled, which asks nothing of the chain.
    const transfer = journaled ? null : await this.buildTransfer(batch, token);
    const entry = await db.transaction().execute(async (trx) => {
      const locked = await lockOpenBatch(trx, batch.id);
      if (!locked) return null;
      const live = await liveSolanaTransfer(trx, batch.id);
      if (live === 'failed') {
        await failBatch(trx, batch.id, 'the transfer failed on chain', clock.now());
        return null;
      }
      if (!live && (await settlementsHeld(trx, batch.merchant_id))) return null;
      // Journaled with its signed bytes before anything is sent; an expired one is replaced on a later round.
      const recorded =
        live ??
        (transfer
          ? await solana.sender.cosignAndRecord({
              purpose: SETTLEMENT_PURPOSE,
              reference: batch.id,
              transaction: transfer.transaction,
              lastValidBlockHeight: transfer.lastValidBlockHeight,
              builtJustNow: true,
            })
          : null);
      if (!recorded) return null;
      await markBatchSent(trx, batch.id, clock.now());
      return recorded;
    });
    if (!entry) return false;
    if (entry.status === 'confirmed') return settleBatch(db, this.context.announcer(), batch.id, entry.signature);
    transferCrashPoint(this.context.crashAt, 'recorded');
    // Sent once here; the network's follower sends it again while unseen, and settles or releases the batch.
    if (entry.status === 'recorded')
      await solana.sender.sendJournaled(entry).catch((error: unknown) => {
        if (!(error instanceof SolanaTransactionRejectedError)) throw error;
      });
    return false;
  }

  private buildTransfer(batch: BatchRow, token: TokenInfo) {
    const { services } = this.context;
    const solana = services.solana.networks.get(token.chain);
    if (!solana) throw new Error(`no Solana sender for ${token.chain}`);
    const destination = parseAccountId(batch.destination);
    if (!destination) throw new Error(`destination ${batch.destination} is not a valid account`);
    return buildSolanaSettlementTransfer({
      rpc: solana.rpc,
      collector: services.solana.collector.address,
      destination: destination.address,
      mint: token.address,
      decimals: token.decimals,
      amount: BigInt(batch.amount),
      batchId: batch.id,
    });
  }
}
