import { type Namespace, parseChainId } from '../chains/caip.ts';
import type { ChainRegistry, TokenInfo } from '../chains/registry.ts';
import { type RepeatingTask, repeatEvery } from '../jobs/repeatEvery.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import { parseTokenAmount } from './fees.ts';
import {
  type BatchRow,
  claimBatch,
  clearShortfalls,
  openBatches,
  recordShortfall,
  unsettledGroups,
} from './batches.ts';
import type { TransferCrashPoint } from '../payouts/crashPoint.ts';
import { payoutSenders } from '../payouts/index.ts';
import type { PayoutBook, PayoutSender } from '../payouts/payout.ts';
import { batchBook } from './batchBook.ts';
import { type Logger, silentLogger } from '../log.ts';
import type { AddressScreening } from '../screening/addressScreening.ts';

export interface SettlementWorkerOptions {
  db: Db;
  chains: ChainRegistry;
  services: ChainServices;
  clock: Clock;
  /** Links in the `payment.settled` events name the service's base URL, known only once it listens. */
  baseUrl: () => string;
  /** The smallest batch worth a transfer, in whole tokens as decimal text (`"0"`: any amount). */
  minimumBatch: string;
  log?: Logger;
  /** Screens each destination before the first transfer to it is journaled (SCREENING). */
  screening?: AddressScreening;
  /** Test-only: stop the process at this point of a transfer (see crashPoint.ts). */
  crashAt?: TransferCrashPoint;
}

export interface SettlementRound {
  /** Batches made this round; their transfers are sent, and settled by the networks' followers once final. */
  created: string[];
  /** Batches found settled this round (their transfer was final before its outcome could be applied with it). */
  settled: string[];
  /** Assets whose batches were held back because the collector held too little. */
  shortOf: string[];
}

/**
 * Pays merchants what they are owed (D16): groups succeeded, unsettled payments per (merchant, asset) into batches
 * and sends one transfer per batch from the collector through the chain layer's journals. A batch and its
 * payments are recorded in one transaction; its transfer is journaled before it is sent and looked up by the
 * batch id before another is made, so a crash at any point gives exactly one transfer. Nothing here waits for a
 * block: the network's follower settles the batch when its transfer is final. Runs in every process; batches are
 * claimed with row locks.
 */
export class SettlementWorker {
  private readonly log: Logger;
  private readonly senders: Record<Namespace, PayoutSender>;
  private readonly book: PayoutBook;

  constructor(private readonly options: SettlementWorkerOptions) {
    this.log = options.log ?? silentLogger;
    const { chains, clock, baseUrl } = options;
    this.senders = payoutSenders(options);
    this.book = batchBook(() => ({ chains, baseUrl: baseUrl(), now: clock.now() }));
  }

  /** Finishes open batches, makes new ones the collector can pay, and sends them. */
  async runOnce(): Promise<SettlementRound> {
    const round: SettlementRound = { created: [], settled: [], shortOf: [] };
    await this.driveOpenBatches(round);
    await this.createBatches(round);
    await this.driveOpenBatches(round);
    return round;
  }

  /** Runs a round now and then every `intervalMs` until stopped. */
  runEvery(intervalMs: number): RepeatingTask {
    return repeatEvery(
      () => this.runOnce(),
      intervalMs,
      (error) => this.log.warn(`settlement round failed: ${error.message}`),
      {
        stopWaitMs: 5_000,
      },
    );
  }

  private async createBatches(round: SettlementRound): Promise<void> {
    const { db, chains, clock } = this.options;
    const short = new Set<string>();
    for (const group of await unsettledGroups(db)) {
      const token = chains.token(group.asset);
      const sender = token && this.senderFor(token);
      if (!token || !sender?.canSend(token)) {
        this.log.warn(
          `payments in ${group.asset} cannot be settled: no sender for ${token?.chain ?? 'its chain'} in this process`,
        );
        continue;
      }
      if (group.amount < parseTokenAmount(this.options.minimumBatch, token.decimals)) continue;
      try {
        const subject = { merchantId: group.merchantId };
        if (await this.options.screening?.isBlocked('settlement', group.destination, subject)) {
          this.log.warn(
            `settlement of ${group.merchantId} in ${group.asset} waits: its destination ${group.destination} is blocked by address screening, or screening is unavailable`,
          );
          continue;
        }
        const held = await sender.collectorHolds(token);
        const outcome = await claimBatch(db, {
          merchantId: group.merchantId,
          asset: token.caip19,
          network: token.chain,
          held,
          now: clock.now(),
        });
        if (outcome.kind === 'claimed') round.created.push(outcome.batchId);
        if (outcome.kind === 'short') {
          short.add(token.caip19);
          await recordShortfall(db, token.caip19, outcome.needed, held);
          this.log.warn(
            `collector holds ${held} of ${token.caip19} but open settlements need ${outcome.needed}: the batch waits for the next round`,
          );
        }
      } catch (error) {
        this.log.warn(`settling ${group.merchantId} in ${group.asset} failed: ${(error as Error).message}`);
      }
    }
    round.shortOf = [...short];
    await clearShortfalls(db, round.shortOf);
  }

  private async driveOpenBatches(round: SettlementRound): Promise<void> {
    for (const batch of await openBatches(this.options.db)) {
      try {
        const settled = await this.drive(batch);
        if (settled) round.settled.push(batch.id);
      } catch (error) {
        this.log.warn(`settlement batch ${batch.id} not sent yet: ${(error as Error).message}`);
      }
    }
  }

  private drive(batch: BatchRow): Promise<boolean> {
    const token = this.options.chains.token(batch.asset);
    if (!token) throw new Error(`${batch.asset} is no longer configured`);
    const sender = this.senderFor(token);
    if (!sender) throw new Error(`no settlement sender for ${token.chain}`);
    return sender.drive(
      { id: batch.id, destination: batch.destination, amount: BigInt(batch.amount) },
      token,
      this.book,
    );
  }

  private senderFor(token: TokenInfo): PayoutSender | undefined {
    const chain = parseChainId(token.chain);
    return chain && this.senders[chain.namespace];
  }
}
