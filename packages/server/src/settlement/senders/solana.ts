import { parseAccountId } from '../../chains/caip.ts';
import type { TokenInfo } from '../../chains/registry.ts';
import { SolanaTransactionRejectedError } from '../../chains/solana/errors.ts';
import { readSolanaBalances } from '../../chains/solana/readSolanaBalances.ts';
import { type BatchRow, failBatch, liveSolanaTransfer, lockOpenBatch, markBatchSent, SETTLEMENT_PURPOSE, settleBatch } from '../batches.ts';
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
    const entry = await db.transaction().execute(async (trx) => {
      const locked = await lockOpenBatch(trx, batch.id);
      if (!locked) return null;
      const live = await liveSolanaTransfer(trx, batch.id);
      if (live === 'failed') {
        await failBatch(trx, batch.id, 'the transfer failed on chain', clock.now());
        return null;
      }
      let journaled = live;
      if (!journaled) {
        const destination = parseAccountId(locked.destination);
        if (!destination) throw new Error(`destination ${locked.destination} is not a valid account`);
        const transfer = await buildSolanaSettlementTransfer({
          rpc: solana.rpc,
          collector: services.solana.collector.address,
          destination: destination.address,
          mint: token.address,
          decimals: token.decimals,
          amount: BigInt(locked.amount),
          batchId: batch.id,
        });
        // Journaled with its signed bytes before anything is sent; an expired one is replaced on a later round.
        journaled = await solana.sender.cosignAndRecord({
          purpose: SETTLEMENT_PURPOSE,
          reference: batch.id,
          transaction: transfer.transaction,
          lastValidBlockHeight: transfer.lastValidBlockHeight,
        });
      }
      await markBatchSent(trx, batch.id, clock.now());
      return journaled;
    });
    if (!entry) return false;
    if (entry.status === 'confirmed') return settleBatch(db, this.context.announcer(), batch.id, entry.signature);
    transferCrashPoint(this.context.crashAt, 'recorded');
    // Sent once here; the network's follower sends it again while unseen, and settles or releases the batch.
    if (entry.status === 'recorded') await solana.sender.sendJournaled(entry).catch((error: unknown) => {
      if (!(error instanceof SolanaTransactionRejectedError)) throw error;
    });
    return false;
  }
}
