import { type Address, getAddress } from 'viem';
import { parseAccountId } from '../chains/caip.ts';
import { readBalances } from '../chains/evm/index.ts';
import type { ChainRegistry, TokenInfo } from '../chains/registry.ts';
import { type RepeatingTask, repeatEvery } from '../jobs/repeatEvery.ts';
import { SolanaTransactionRejectedError } from '../chains/solana/errors.ts';
import { readSolanaBalances } from '../chains/solana/readSolanaBalances.ts';
import type { Clock } from '../context.ts';
import type { Db } from '../db/database.ts';
import type { GatewayServices } from '../gateway/services.ts';
import { parseTokenAmount } from './fees.ts';
import {
  type BatchRow,
  claimBatch,
  clearShortfalls,
  failBatch,
  liveEvmTransfer,
  liveSolanaTransfer,
  lockOpenBatch,
  markBatchSent,
  openBatches,
  recordShortfall,
  settleBatch,
  SETTLEMENT_PURPOSE,
  unsettledGroups,
} from './batches.ts';
import { transferCrashPoint, type TransferCrashPoint } from './crashPoint.ts';
import { buildSolanaSettlementTransfer, evmTransferCall } from './transfers.ts';

/** The transfer of the batch's amount to its destination. */
function settlementCall(token: TokenInfo, batch: BatchRow) {
  const destination = parseAccountId(batch.destination);
  if (!destination) throw new Error(`destination ${batch.destination} is not a valid account`);
  return evmTransferCall(token, getAddress(destination.address) as Address, BigInt(batch.amount));
}

export interface SettlementWorkerOptions {
  db: Db;
  chains: ChainRegistry;
  services: GatewayServices;
  clock: Clock;
  /** Links in the `payment.settled` events name the service's base URL, known only once it listens. */
  baseUrl: () => string;
  /** The smallest batch worth a transfer, in whole tokens as decimal text (`"0"`: any amount). */
  minimumBatch: string;
  onProblem?: (message: string) => void;
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
  private readonly onProblem: (message: string) => void;

  constructor(private readonly options: SettlementWorkerOptions) {
    this.onProblem = options.onProblem ?? (() => {});
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
    return repeatEvery(() => this.runOnce(), intervalMs, (error) => this.onProblem(`settlement round failed: ${error.message}`), {
      stopWaitMs: 5_000,
    });
  }


  private async createBatches(round: SettlementRound): Promise<void> {
    const { db, chains, clock } = this.options;
    const short = new Set<string>();
    for (const group of await unsettledGroups(db)) {
      const token = chains.token(group.asset);
      if (!token || !this.canSend(token)) {
        this.onProblem(`payments in ${group.asset} cannot be settled: no sender for ${token?.chain ?? 'its chain'} in this process`);
        continue;
      }
      if (group.amount < parseTokenAmount(this.options.minimumBatch, token.decimals)) continue;
      try {
        const held = await this.collectorHolds(token);
        const outcome = await claimBatch(db, { merchantId: group.merchantId, asset: token.caip19, network: token.chain, held, now: clock.now() });
        if (outcome.kind === 'claimed') round.created.push(outcome.batchId);
        if (outcome.kind === 'short') {
          short.add(token.caip19);
          await recordShortfall(db, token.caip19, outcome.needed, held);
          this.onProblem(
            `collector holds ${held} of ${token.caip19} but open settlements need ${outcome.needed}: the batch waits for the next round`,
          );
        }
      } catch (error) {
        this.onProblem(`settling ${group.merchantId} in ${group.asset} failed: ${(error as Error).message}`);
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
        this.onProblem(`settlement batch ${batch.id} not sent yet: ${(error as Error).message}`);
      }
    }
  }

  private drive(batch: BatchRow): Promise<boolean> {
    const token = this.options.chains.token(batch.asset);
    if (!token) throw new Error(`${batch.asset} is no longer configured`);
    return token.chain.startsWith('solana:') ? this.driveSolana(batch, token) : this.driveEvm(batch, token);
  }

  /**
   * Journals the batch's transfer unless it has one and sends it; the network's follower settles the batch once the
   * transfer is final. Returns whether the batch turned out settled already.
   */
  private async driveEvm(batch: BatchRow, token: TokenInfo): Promise<boolean> {
    const { db, services } = this.options;
    const { relayer } = services.evm;
    const next = await db.transaction().execute(async (trx) => {
      const locked = await lockOpenBatch(trx, batch.id);
      if (!locked) return null;
      const live = await liveEvmTransfer(trx, batch.id);
      if (live === 'failed') {
        await failBatch(trx, batch.id, 'the transfer failed on chain', this.options.clock.now());
        return null;
      }
      const landedHash = live?.status === 'confirmed' ? live.minedHash : null;
      if (landedHash) {
        // Confirmed before its outcome was applied with it (a transfer of an older version of the service).
        await markBatchSent(trx, batch.id, this.options.clock.now());
        return { landed: true, hash: landedHash } as const;
      }
      // The relayer journals the signed transfer in its own transaction; this batch's row lock keeps any other
      // process from making a second one before the link below commits, and the lookup above finds it after a crash.
      const id = live ? live.id : (await relayer.record({ chain: token.chain, ...settlementCall(token, locked), purpose: SETTLEMENT_PURPOSE, paymentId: batch.id })).id;
      await markBatchSent(trx, batch.id, this.options.clock.now());
      return { landed: false, id } as const;
    });
    if (!next) return false;
    if (next.landed) return settleBatch(db, this.announcer(), batch.id, next.hash);
    transferCrashPoint(this.options.crashAt, 'recorded');
    await relayer.broadcast(next.id);
    transferCrashPoint(this.options.crashAt, 'broadcast');
    return false;
  }

  private async driveSolana(batch: BatchRow, token: TokenInfo): Promise<boolean> {
    const { db, services } = this.options;
    const solana = services.solana.networks.get(token.chain);
    if (!solana) throw new Error(`no Solana sender for ${token.chain}`);
    const entry = await db.transaction().execute(async (trx) => {
      const locked = await lockOpenBatch(trx, batch.id);
      if (!locked) return null;
      const live = await liveSolanaTransfer(trx, batch.id);
      if (live === 'failed') {
        await failBatch(trx, batch.id, 'the transfer failed on chain', this.options.clock.now());
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
      await markBatchSent(trx, batch.id, this.options.clock.now());
      return journaled;
    });
    if (!entry) return false;
    if (entry.status === 'confirmed') return settleBatch(db, this.announcer(), batch.id, entry.signature);
    transferCrashPoint(this.options.crashAt, 'recorded');
    // Sent once here; the network's follower sends it again while unseen, and settles or releases the batch.
    if (entry.status === 'recorded') await solana.sender.sendJournaled(entry).catch((error: unknown) => {
      if (!(error instanceof SolanaTransactionRejectedError)) throw error;
    });
    return false;
  }

  private canSend(token: TokenInfo): boolean {
    if (token.chain.startsWith('solana:')) return token.method === 'spl' && this.options.services.solana.networks.has(token.chain);
    return this.options.chains.network(token.chain)?.rpcUrl !== undefined;
  }

  /** What the collector holds of the token now, in minor units. */
  private async collectorHolds(token: TokenInfo): Promise<bigint> {
    const { services, chains } = this.options;
    if (token.chain.startsWith('solana:')) {
      const solana = services.solana.networks.get(token.chain);
      if (!solana) throw new Error(`no Solana RPC for ${token.chain}`);
      const owner = services.solana.collector.address;
      const balances = await readSolanaBalances(solana.rpc, [owner], [token.address]);
      return balances[owner]?.tokens[token.address] ?? 0n;
    }
    const network = chains.network(token.chain);
    if (!network) throw new Error(`${token.chain} is not configured`);
    const balances = await readBalances(services.evm.clients.for(network), [services.evm.collector], [token]);
    return balances.of(services.evm.collector, token);
  }

  private announcer() {
    const { chains, clock, baseUrl } = this.options;
    return { chains, baseUrl: baseUrl(), now: clock.now() };
  }
}
