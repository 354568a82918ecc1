import { type Namespace, parseChainId } from '../chains/caip.ts';
import type { ChainRegistry, TokenInfo } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import { type RepeatingTask, repeatEvery } from '../jobs/repeatEvery.ts';
import { type Logger, silentLogger } from '../log.ts';
import type { AddressScreening } from '../screening/addressScreening.ts';
import { payoutSenders } from '../payouts/index.ts';
import { liveEvmTransfer, liveSolanaTransfer } from '../payouts/journalLookups.ts';
import type { PayoutBook, PayoutSender } from '../payouts/payout.ts';
import type { TransferCrashPoint } from '../payouts/crashPoint.ts';
import { batchesInFlight } from '../settlement/batches.ts';
import { REFUND_PURPOSE, refundBook } from './refundBook.ts';
import { pendingRefundsOf } from './refundDebt.ts';

/** How often every process looks for pending on-chain refunds (one made in this process is sent at once). */
export const REFUND_SWEEP_MS = 5_000;

export interface RefundWorkerOptions {
  db: Db;
  chains: ChainRegistry;
  services: ChainServices;
  clock: Clock;
  log?: Logger;
  /** Screens each destination before the first transfer to it is journaled (SCREENING). */
  screening?: AddressScreening;
  /** Test-only: stop the process at this point of a transfer (see crashPoint.ts). */
  crashAt?: TransferCrashPoint;
}

export interface RefundRound {
  /** Refunds whose transfer was journaled or sent this round; the networks' followers end them once final. */
  driven: string[];
  /** Refunds left pending because the collector holds too little beside what settlements and refunds before them need. */
  waiting: string[];
}

/**
 * Sends on-chain refunds from the collector: each pending refund gets one transfer of its token amount to the account
 * that paid, journaled before it is sent and found by the refund id after a restart, so a crash at any point still
 * gives exactly one transfer. Runs in every process; refunds are taken with row locks. Nothing here waits for a
 * block: the network's follower makes the refund succeeded or failed in the transaction that records its end.
 */
export class RefundWorker {
  private readonly log: Logger;
  private readonly senders: Record<Namespace, PayoutSender>;
  private readonly book: PayoutBook;

  constructor(private readonly options: RefundWorkerOptions) {
    this.log = options.log ?? silentLogger;
    this.senders = payoutSenders(options);
    this.book = refundBook(options.clock);
  }

  async runOnce(): Promise<RefundRound> {
    const round: RefundRound = { driven: [], waiting: [] };
    const pending = await this.options.db
      .selectFrom('refunds')
      .select(['id', 'token_asset', 'token_value', 'destination'])
      .where('method', '=', 'onchain')
      .where('status', '=', 'pending')
      .orderBy('id')
      .limit(200)
      .execute();
    for (const refund of pending) {
      try {
        const token = refund.token_asset ? this.options.chains.token(refund.token_asset) : undefined;
        const sender = token && this.senderFor(token);
        if (!token || !sender?.canSend(token) || !refund.destination || refund.token_value === null) {
          this.log.warn(`refund ${refund.id} in ${refund.token_asset} cannot be sent by this process`);
          continue;
        }
        const payout = { id: refund.id, destination: refund.destination, amount: BigInt(refund.token_value) };
        if (!(await this.journaled(token, refund.id))) {
          // A transfer journaled already is finished whatever the list says now: it may be on its way.
          if (await this.options.screening?.isBlocked('refund_destination', refund.destination)) {
            this.log.warn(
              `refund ${refund.id} waits: its destination ${refund.destination} is blocked by address screening, or screening is unavailable`,
            );
            round.waiting.push(refund.id);
            continue;
          }
          if (!(await this.collectorCovers(sender, token, payout))) {
            round.waiting.push(refund.id);
            continue;
          }
        }
        await sender.drive(payout, token, this.book);
        round.driven.push(refund.id);
      } catch (error) {
        this.log.warn(`refund ${refund.id} not sent yet: ${(error as Error).message}`);
      }
    }
    return round;
  }

  /** Runs a round now and every `REFUND_SWEEP_MS` until stopped; `soon()` runs the next one at once. */
  runEvery(intervalMs = REFUND_SWEEP_MS): RepeatingTask {
    return repeatEvery(
      () => this.runOnce(),
      intervalMs,
      (error) => this.log.warn(`refund round failed: ${error.message}`),
      { stopWaitMs: 5_000 },
    );
  }

  private async journaled(token: TokenInfo, refundId: string): Promise<boolean> {
    const { db } = this.options;
    const namespace = parseChainId(token.chain)?.namespace;
    const live =
      namespace === 'solana'
        ? await liveSolanaTransfer(db, REFUND_PURPOSE, refundId)
        : await liveEvmTransfer(db, REFUND_PURPOSE, refundId);
    return live !== undefined && live !== 'failed';
  }

  /**
   * Whether the collector holds this refund beside the asset's settlement batches in flight and the pending refunds
   * before it: a refund never takes what a batch already counted on. Short, it waits and the log says so.
   */
  private async collectorCovers(
    sender: PayoutSender,
    token: TokenInfo,
    payout: { id: string; amount: bigint },
  ): Promise<boolean> {
    const { db } = this.options;
    const held = await sender.collectorHolds(token);
    const needed =
      (await batchesInFlight(db, token.caip19)) + (await pendingRefundsOf(db, token.caip19, payout.id)) + payout.amount;
    if (needed <= held) return true;
    this.log.warn(
      `collector holds ${held} of ${token.caip19} but refund ${payout.id} needs ${needed} with what is due before it: it waits`,
    );
    return false;
  }

  private senderFor(token: TokenInfo): PayoutSender | undefined {
    const chain = parseChainId(token.chain);
    return chain && this.senders[chain.namespace];
  }
}
