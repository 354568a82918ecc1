import { sql } from 'kysely';
import { followedChains } from '../chains/chainFollowers.ts';
import { depositReadPositions } from '../chains/evm/deposits/depositScanner.ts';
import { ChainRegistry, type NetworkInfo } from '../chains/registry.ts';
import { transportFailure } from '../chains/rpcEndpoints.ts';
import { commitmentFor } from '../chains/solana/transactionSender.ts';
import type { AppContext } from '../context.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import { type JobQueueDepth, jobQueueDepths } from '../jobs/queue.ts';
import { auditCollector, type CollectorBalanceCheck, finalReadPoints, readCollectorLedger } from '../ledger/audit.ts';
import { payoutSenders } from '../payouts/index.ts';
import { shortfalls } from '../settlement/batches.ts';

/** How long the console waits for a node before it shows the node as unreachable. */
export const NODE_TIMEOUT_MS = 3_000;

/** What a read of a node gave: its answer, or why there is none (never the node's URL). */
export type NodeReading<T> = { status: 'reachable'; value: T } | { status: 'unreachable'; problem: string };

export interface NetworkHealth {
  network: NetworkInfo;
  /** Null when this process has no node for the network. */
  latest: NodeReading<bigint> | null;
  /** Some process holds the network's follower lock. */
  followed: boolean;
  /** Where the network's deposit follower has read to (EVM), if it stored a position. */
  position: { readUpTo: bigint; movedAt: Date } | undefined;
  /** The collector's check of `paygate audit` on this network; null without a node. */
  collector: NodeReading<CollectorBalanceCheck[]> | null;
  /**
   * Transactions the collector sent that the database's journals do not hold (a restore to an older point): while
   * above 0 nothing more is sent from it there. Null without a node.
   */
  unjournaled: NodeReading<bigint> | null;
}

export interface UnconfirmedSettlements {
  asset: string;
  status: 'claimed' | 'sent';
  batches: number;
  amount: bigint;
  oldestCreatedAt: Date;
}

export interface ServiceHealth {
  checkedAt: Date;
  networks: NetworkHealth[];
  jobs: JobQueueDepth[];
  webhooks: { pending: number; retrying: number; oldestPendingSince: Date | null };
  settlements: { unconfirmed: UnconfirmedSettlements[]; shortfalls: { asset: string; needed: bigint; held: bigint }[] };
}

/** Runs `read` and waits for it at most `timeoutMs`; a node that fails or does not answer in time is unreachable. */
async function readNode<T>(read: () => Promise<T>, timeoutMs: number): Promise<NodeReading<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<NodeReading<T>>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 'unreachable', problem: `no answer within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      read().then(
        (value): NodeReading<T> => ({ status: 'reachable', value }),
        (error: unknown): NodeReading<T> => ({
          status: 'unreachable',
          problem: transportFailure(error) ?? 'the node answered with an error',
        }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The network's newest block (EVM) or slot (Solana, at the commitment its follower reads at), through the clients the
 * service itself uses; undefined when this process has no node for the network.
 */
function latestBlockReader(services: ChainServices, network: NetworkInfo): (() => Promise<bigint>) | undefined {
  if (network.namespace === 'eip155') {
    if (!network.rpcUrl) return undefined;
    const client = services.evm.clients.for(network);
    return () => client.getBlockNumber({ cacheTime: 0 });
  }
  const solana = services.solana.networks.get(network.caip2);
  if (!solana) return undefined;
  return () => solana.rpc.getSlot({ commitment: commitmentFor(network.confirmations) }).send();
}

/** How many of the collector's transactions on the network its journals do not hold. */
async function unjournaledReader(services: ChainServices, network: NetworkInfo): Promise<bigint> {
  if (network.namespace === 'eip155') return services.evm.relayer.unjournaledTransactions(network.caip2);
  const solana = services.solana.networks.get(network.caip2);
  if (!solana) throw new Error(`no Solana node for ${network.caip2}`);
  return BigInt((await solana.sender.unjournaledTransactions()).length);
}

/** The settlement batches whose transfer is not final yet, per asset and status. */
async function unconfirmedSettlements(ctx: AppContext): Promise<UnconfirmedSettlements[]> {
  const rows = await ctx.db
    .selectFrom('settlement_batches')
    .select([
      'asset',
      'status',
      sql<number>`count(*)::int`.as('batches'),
      sql<string>`sum(amount)::text`.as('amount'),
      sql<Date>`min(created_at)`.as('oldest_created_at'),
    ])
    .where('status', 'in', ['claimed', 'sent'])
    .groupBy(['asset', 'status'])
    .orderBy('asset')
    .orderBy('status')
    .execute();
  return rows.map((row) => ({
    asset: row.asset,
    status: row.status as 'claimed' | 'sent',
    batches: row.batches,
    amount: BigInt(row.amount),
    oldestCreatedAt: row.oldest_created_at,
  }));
}

async function pendingWebhookDeliveries(ctx: AppContext): Promise<ServiceHealth['webhooks']> {
  const row = await ctx.db
    .selectFrom('webhook_deliveries')
    .select([
      sql<number>`count(*)::int`.as('pending'),
      sql<number>`(count(*) FILTER (WHERE attempts > 0))::int`.as('retrying'),
      sql<Date | null>`min(created_at)`.as('oldest'),
    ])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { pending: row.pending, retrying: row.retrying, oldestPendingSince: row.oldest };
}

/**
 * What the operator console's health page shows. Everything the database knows is read first, one statement at a
 * time, so no connection is held while a node is asked; then every node is asked at once, each given
 * `timeoutMs`. The collector's balances are the chain side of `paygate audit`'s collector check, read as it reads
 * them (each network at its newest final block, the ledger before any head): a handful of calls per network
 * whatever the traffic. The audit's other checks add up every payment and deposit, and stay with the command.
 * The collector's transactions on chain are compared with the journals, read after the node answered.
 */
export async function readServiceHealth(ctx: AppContext, timeoutMs = NODE_TIMEOUT_MS): Promise<ServiceHealth> {
  const networks = ctx.chains.networks;
  const followed = await followedChains(
    ctx.db,
    networks.map((network) => network.caip2),
  );
  const positions = new Map((await depositReadPositions(ctx.db)).map((position) => [position.chain, position]));
  const jobs = await jobQueueDepths(ctx.db);
  const webhooks = await pendingWebhookDeliveries(ctx);
  const settlements = { unconfirmed: await unconfirmedSettlements(ctx), shortfalls: await shortfalls(ctx.db) };
  const ledger = await readCollectorLedger(ctx.db);
  const checkedAt = ctx.clock.now();

  const services = ctx.chainServices;
  const senders = services && payoutSenders({ db: ctx.db, chains: ctx.chains, services, clock: ctx.clock });
  const readPoints = services && finalReadPoints((network) => services.evm.clients.for(network));
  const networkHealth = await Promise.all(
    networks.map(async (network): Promise<NetworkHealth> => {
      const readLatest = services && latestBlockReader(services, network);
      const [latest, collector, unjournaled] =
        readLatest && senders && readPoints
          ? await Promise.all([
              readNode(readLatest, timeoutMs),
              readNode(() => auditCollector(ledger, new ChainRegistry([network]), senders, readPoints), timeoutMs),
              readNode(() => unjournaledReader(services, network), timeoutMs),
            ])
          : [null, null, null];
      const position = positions.get(network.caip2);
      return {
        network,
        latest,
        followed: followed.has(network.caip2),
        position: position && { readUpTo: position.readUpTo, movedAt: position.movedAt },
        collector,
        unjournaled,
      };
    }),
  );
  return { checkedAt, networks: networkHealth, jobs, webhooks, settlements };
}
