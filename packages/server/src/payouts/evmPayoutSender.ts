import { type Address, getAddress } from 'viem';
import { parseAccountId } from '../chains/caip.ts';
import { readBalances } from '../chains/evm/index.ts';
import type { TokenInfo } from '../chains/registry.ts';
import { transferCrashPoint } from './crashPoint.ts';
import { evmTransferCall } from '../settlement/transfers.ts';
import { liveEvmTransfer } from './journalLookups.ts';
import type { ChainReadPoint, Payout, PayoutBook, PayoutSender, PayoutSenderContext } from './payout.ts';

/** The transfer of the payout's amount to its destination. */
function payoutCall(token: TokenInfo, payout: Payout) {
  const destination = parseAccountId(payout.destination);
  if (!destination) throw new Error(`destination ${payout.destination} is not a valid account`);
  return evmTransferCall(token, getAddress(destination.address) as Address, payout.amount);
}

/** Pays from the collector on EVM networks through the relayer's journal. */
export class EvmPayoutSender implements PayoutSender {
  constructor(private readonly context: PayoutSenderContext) {}

  canSend(token: TokenInfo): boolean {
    return this.context.chains.network(token.chain)?.rpcUrl !== undefined;
  }

  async collectorHolds(token: TokenInfo, at?: ChainReadPoint): Promise<bigint> {
    const { services, chains } = this.context;
    const network = chains.network(token.chain);
    if (!network) throw new Error(`${token.chain} is not configured`);
    if (at && !('block' in at)) throw new Error(`an EVM balance is read at a block, not at ${at.commitment}`);
    const client = services.evm.clients.for(network);
    const balances = await readBalances(client, [services.evm.collector], [token], at?.block);
    return balances.of(services.evm.collector, token);
  }

  async drive(payout: Payout, token: TokenInfo, book: PayoutBook): Promise<boolean> {
    const { db, services, clock } = this.context;
    const { relayer } = services.evm;
    // A transfer already journaled goes out even while the payout is held: it holds a nonce of the collector.
    const journaled = await liveEvmTransfer(db, book.purpose, payout.id);
    if (!journaled && (await book.held(db, payout.id))) return false;
    // The chain is asked before the row is locked (a payout's destination and amount never change): the lock is
    // held only while the transfer is journaled, which asks nothing of the chain.
    const prepared = journaled
      ? null
      : await relayer.prepare({
          chain: token.chain,
          ...payoutCall(token, payout),
          purpose: book.purpose,
          paymentId: payout.id,
        });
    const next = await db.transaction().execute(async (trx) => {
      if (!(await book.lock(trx, payout.id))) return null;
      const live = await liveEvmTransfer(trx, book.purpose, payout.id);
      if (live === 'failed') {
        await book.fail(trx, payout.id, 'the transfer failed on chain', clock.now());
        return null;
      }
      const landedHash = live?.status === 'confirmed' ? live.minedHash : null;
      if (landedHash) {
        // Confirmed before its outcome was applied with it (a transfer of an older version of the service).
        await book.markSent(trx, payout.id, clock.now(), false);
        return { landed: true, hash: landedHash } as const;
      }
      if (!live && (await book.held(trx, payout.id))) return null;
      // The relayer journals the signed transfer in its own transaction; this row's lock keeps any other process
      // from making a second one before the link below commits, and the lookup above finds it after a crash.
      const id = live?.id ?? (prepared ? (await relayer.recordPrepared(prepared)).id : null);
      if (!id) return null;
      await book.markSent(trx, payout.id, clock.now(), !live);
      return { landed: false, id } as const;
    });
    if (!next) return false;
    if (next.landed) return book.complete(db, payout.id, next.hash);
    transferCrashPoint(this.context.crashAt, 'recorded');
    await relayer.broadcast(next.id);
    transferCrashPoint(this.context.crashAt, 'broadcast');
    return false;
  }
}
