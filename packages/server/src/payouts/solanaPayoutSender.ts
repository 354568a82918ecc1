import { parseAccountId } from '../chains/caip.ts';
import type { TokenInfo } from '../chains/registry.ts';
import { buildSolTransfer } from '../chains/solana/buildSolTransfer.ts';
import { SolanaTransactionRejectedError } from '../chains/solana/errors.ts';
import { readSolanaBalances } from '../chains/solana/readSolanaBalances.ts';
import { transferCrashPoint } from './crashPoint.ts';
import { buildSolanaSettlementTransfer } from '../settlement/transfers.ts';
import { liveSolanaTransfer } from './journalLookups.ts';
import type { ChainReadPoint, Payout, PayoutBook, PayoutSender, PayoutSenderContext } from './payout.ts';

/** Pays SPL tokens and SOL from the collector on Solana networks through the Solana journal. */
export class SolanaPayoutSender implements PayoutSender {
  constructor(private readonly context: PayoutSenderContext) {}

  canSend(token: TokenInfo): boolean {
    return (
      (token.method === 'spl' || token.method === 'native') && this.context.services.solana.networks.has(token.chain)
    );
  }

  async collectorHolds(token: TokenInfo, at?: ChainReadPoint): Promise<bigint> {
    const { services } = this.context;
    const solana = services.solana.networks.get(token.chain);
    if (!solana) throw new Error(`no Solana RPC for ${token.chain}`);
    if (at && !('commitment' in at))
      throw new Error(`a Solana balance is read at a commitment, not at block ${at.block}`);
    const owner = services.solana.collector.address;
    const options = { commitment: at?.commitment };
    if (token.method === 'native')
      return (await readSolanaBalances(solana.rpc, [owner], [], options))[owner]?.lamports ?? 0n;
    const balances = await readSolanaBalances(solana.rpc, [owner], [token.address], options);
    return balances[owner]?.tokens[token.address] ?? 0n;
  }

  async drive(payout: Payout, token: TokenInfo, book: PayoutBook): Promise<boolean> {
    const { db, services, clock } = this.context;
    const solana = services.solana.networks.get(token.chain);
    if (!solana) throw new Error(`no Solana sender for ${token.chain}`);
    // A transfer already journaled goes out even while the payout is held; a new one waits.
    const journaled = await liveSolanaTransfer(db, book.purpose, payout.id);
    if (!journaled && (await book.held(db, payout.id))) return false;
    // Built before the row is locked (a payout's destination and amount never change): the lock is held only
    // while the transfer is journaled, which asks nothing of the chain.
    const transfer = journaled ? null : await this.buildTransfer(payout, token);
    const entry = await db.transaction().execute(async (trx) => {
      if (!(await book.lock(trx, payout.id))) return null;
      const live = await liveSolanaTransfer(trx, book.purpose, payout.id);
      if (live === 'failed') {
        await book.fail(trx, payout.id, 'the transfer failed on chain', clock.now());
        return null;
      }
      if (!live && (await book.held(trx, payout.id))) return null;
      // Journaled with its signed bytes before anything is sent; an expired one is replaced on a later round.
      const recorded =
        live ??
        (transfer
          ? await solana.sender.cosignAndRecord({
              purpose: book.purpose,
              reference: payout.id,
              transaction: transfer.transaction,
              lastValidBlockHeight: transfer.lastValidBlockHeight,
              builtJustNow: true,
            })
          : null);
      if (!recorded) return null;
      await book.markSent(trx, payout.id, clock.now(), !live);
      return recorded;
    });
    if (!entry) return false;
    if (entry.status === 'confirmed') return book.complete(db, payout.id, entry.signature);
    transferCrashPoint(this.context.crashAt, 'recorded');
    // Sent once here; the network's follower sends it again while unseen, and applies the payout's end.
    if (entry.status === 'recorded')
      await solana.sender.sendJournaled(entry).catch((error: unknown) => {
        if (!(error instanceof SolanaTransactionRejectedError)) throw error;
      });
    return false;
  }

  private buildTransfer(payout: Payout, token: TokenInfo) {
    const { services } = this.context;
    const solana = services.solana.networks.get(token.chain);
    if (!solana) throw new Error(`no Solana sender for ${token.chain}`);
    const destination = parseAccountId(payout.destination);
    if (!destination) throw new Error(`destination ${payout.destination} is not a valid account`);
    if (token.method === 'native') {
      return buildSolTransfer({
        rpc: solana.rpc,
        collector: services.solana.collector.address,
        to: destination.address,
        amount: payout.amount,
        memo: payout.id,
      });
    }
    return buildSolanaSettlementTransfer({
      rpc: solana.rpc,
      collector: services.solana.collector.address,
      destination: destination.address,
      mint: token.address,
      decimals: token.decimals,
      amount: payout.amount,
      batchId: payout.id,
    });
  }
}
