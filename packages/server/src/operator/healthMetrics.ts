import { Counter, Gauge, type Registry } from 'prom-client';
import type { NetworkInfo } from '../chains/registry.ts';
import type { AppContext } from '../context.ts';
import { networkFeeRefusals, OPERATOR, ownerBalance } from '../ledger/ledger.ts';
import { readServiceHealth, type ServiceHealth } from './serviceHealth.ts';

/** What the gauges show: the health page's reading, and the operator's funding left for each network's fees. */
interface HealthReading extends ServiceHealth {
  /** Per network with a native coin, the operator's recorded funding of it in whole coins (`paygate ledger fund`). */
  feeFunding: { network: string; coins: number }[];
}

async function readHealth(ctx: AppContext): Promise<HealthReading> {
  const health = await readServiceHealth(ctx);
  const feeFunding: HealthReading['feeFunding'] = [];
  for (const network of ctx.chains.networks) {
    const native = network.tokens.find((token) => token.method === 'native');
    if (!native) continue;
    const held = await ownerBalance(ctx.db, OPERATOR, native.caip19);
    feeFunding.push({ network: network.caip2, coins: Number(held) / 10 ** native.decimals });
  }
  return { ...health, feeFunding };
}

/**
 * How long a scrape waits for the reading before it serves the other metrics without it: below Prometheus' default
 * scrape timeout (10 s), above the nodes' (`NODE_TIMEOUT_MS`). A reading still running is reused by the next scrape.
 */
const SCRAPE_WAIT_MS = 8_000;

/** The reading, or a failure once the scrape has waited `SCRAPE_WAIT_MS` for it (the database not answering). */
async function withinScrapeWait(reading: Promise<HealthReading>): Promise<HealthReading> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no reading within ${SCRAPE_WAIT_MS / 1000} s`)), SCRAPE_WAIT_MS);
  });
  try {
    return await Promise.race([reading, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One reading of the service's health shared by every gauge of a scrape, and kept for `maxAgeMs`: scrapes more often
 * than that ask the database and the nodes nothing more. A failed reading is not kept.
 */
class SharedHealthReading {
  private last: { startedAt: number; reading: Promise<HealthReading>; done: boolean } | undefined;

  constructor(
    private readonly read: () => Promise<HealthReading>,
    private readonly maxAgeMs: number,
  ) {}

  current(): Promise<HealthReading> {
    const now = performance.now();
    const last = this.last;
    if (last && (!last.done || now - last.startedAt <= this.maxAgeMs)) return last.reading;
    const entry = { startedAt: now, reading: this.read(), done: false };
    entry.reading.then(
      () => {
        entry.done = true;
      },
      () => {
        if (this.last === entry) this.last = undefined;
      },
    );
    this.last = entry;
    return entry.reading;
  }
}

/**
 * A gauge set afresh from the shared reading at each scrape; absent series are those the reading has no value for.
 * A reading that failed (the database away) leaves the gauge empty, so `/metrics` still serves the rest.
 */
function healthGauge(
  registry: Registry,
  health: () => Promise<HealthReading | undefined>,
  definition: { name: string; help: string; labelNames: string[] },
  fill: (health: HealthReading, set: (labels: Record<string, string>, value: number) => void) => void,
): void {
  new Gauge({
    ...definition,
    registers: [registry],
    async collect() {
      this.reset();
      const reading = await health();
      if (reading) fill(reading, (labels, value) => this.set(labels, value));
    },
  });
}

const secondsSince = (at: Date, now: Date) => Math.max(0, (now.getTime() - at.getTime()) / 1000);

/**
 * Blocks between a network's newest final block and where its follower has read to: the follower records a block
 * only once it is `confirmations` deep, so that depth is where it should be, not lag.
 */
function blocksBehindFinal(network: NetworkInfo, newest: bigint, readUpTo: bigint): bigint {
  const behind = newest - BigInt(network.confirmations) - readUpTo;
  return behind > 0n ? behind : 0n;
}

/**
 * The gauges alerts watch, from what the operator console's health page reads (`readServiceHealth`): each network's
 * node, whether its follower runs and how far its stored position is behind, the collector's balances against the
 * ledger as `paygate audit` compares them, the operator's funding left for network fees, what settlements wait for, the
 * job queue and pending webhook deliveries. Read at scrape time at most
 * once per `config.healthMetricsIntervalMs`, with no database connection held while a node is asked; every process
 * reports the same values.
 */
export function registerHealthMetrics(registry: Registry, ctx: AppContext): void {
  const shared = new SharedHealthReading(() => readHealth(ctx), ctx.config.healthMetricsIntervalMs);
  const log = ctx.logger.child({ component: 'metrics' });
  let lastReadingFailed = false;
  const health = () =>
    withinScrapeWait(shared.current()).then(
      (reading) => {
        lastReadingFailed = false;
        return reading;
      },
      (error: unknown) => {
        if (!lastReadingFailed)
          log.warn(`reading the service's health for /metrics failed: ${(error as Error).message}`);
        lastReadingFailed = true;
        return undefined;
      },
    );
  const gauge = (
    definition: { name: string; help: string; labelNames: string[] },
    fill: (health: HealthReading, set: (labels: Record<string, string>, value: number) => void) => void,
  ) => healthGauge(registry, health, definition, fill);

  new Gauge({
    name: 'paygate_health_reading_up',
    help: 'Whether the last reading of the database and the nodes behind the other paygate_ gauges succeeded (1) or not (0)',
    registers: [registry],
    async collect() {
      this.set((await health()) ? 1 : 0);
    },
  });

  gauge(
    {
      name: 'paygate_chain_node_up',
      help: "Whether the network's node answered this process's last health reading (1) or not (0)",
      labelNames: ['network'],
    },
    ({ networks }, set) => {
      for (const { network, latest } of networks)
        if (latest) set({ network: network.caip2 }, latest.status === 'reachable' ? 1 : 0);
    },
  );
  gauge(
    {
      name: 'paygate_chain_followed',
      help: "Whether some process holds the network's follower lock (1) or none does (0)",
      labelNames: ['network'],
    },
    ({ networks }, set) => {
      for (const { network, followed } of networks) set({ network: network.caip2 }, followed ? 1 : 0);
    },
  );
  gauge(
    {
      name: 'paygate_chain_follower_blocks_behind',
      help: "Blocks between the network's newest final block (its newest less its confirmation depth) and where its deposit follower has read to (EVM networks with a stored position)",
      labelNames: ['network'],
    },
    ({ networks }, set) => {
      for (const { network, latest, position } of networks)
        if (position && latest?.status === 'reachable')
          set({ network: network.caip2 }, Number(blocksBehindFinal(network, latest.value, position.readUpTo)));
    },
  );
  gauge(
    {
      name: 'paygate_chain_follower_seconds_behind',
      help: 'How long the network takes to make the blocks its deposit follower is behind its newest final block, at its usual block time',
      labelNames: ['network'],
    },
    ({ networks }, set) => {
      for (const { network, latest, position } of networks)
        if (position && latest?.status === 'reachable')
          set(
            { network: network.caip2 },
            (Number(blocksBehindFinal(network, latest.value, position.readUpTo)) * network.blockTimeMs) / 1000,
          );
    },
  );
  new Counter({
    name: 'paygate_network_fee_refusals_total',
    help: "Transactions this process refused because the operator's funding of the native coin could not pay their network fee (confirms answered 503 network_fee_unfunded, payouts left waiting)",
    labelNames: ['asset'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [asset, count] of networkFeeRefusals()) this.labels(asset).inc(count);
    },
  });
  gauge(
    {
      name: 'paygate_collector_audit_difference',
      help: "The collector's balance on the chain minus the ledger's, per asset in its minor units, as paygate audit compares them",
      labelNames: ['network', 'asset'],
    },
    ({ networks }, set) => {
      for (const { network, collector } of networks)
        if (collector?.status === 'reachable')
          for (const check of collector.value)
            set({ network: network.caip2, asset: check.asset }, Number(check.difference));
    },
  );
  gauge(
    {
      name: 'paygate_collector_gas_balance',
      help: "The collector's balance of the network's native coin, which pays its transactions' fees, in whole coins",
      labelNames: ['network'],
    },
    ({ networks }, set) => {
      for (const { network, collector } of networks) {
        const native = network.tokens.find((token) => token.method === 'native');
        if (!native || collector?.status !== 'reachable') continue;
        // The audit leaves out an asset neither the chain nor the ledger holds any of: then the collector has none.
        const held = collector.value.find((check) => check.asset === native.caip19)?.chain ?? '0';
        set({ network: network.caip2 }, Number(held) / 10 ** native.decimals);
      }
    },
  );
  gauge(
    {
      name: 'paygate_collector_unjournaled_transactions',
      help: "Transactions the collector sent on the network that the database's journals do not hold (restored to an older point): nothing more is sent there while above 0",
      labelNames: ['network'],
    },
    ({ networks }, set) => {
      for (const { network, unjournaled } of networks)
        if (unjournaled?.status === 'reachable') set({ network: network.caip2 }, Number(unjournaled.value));
    },
  );
  gauge(
    {
      name: 'paygate_network_fee_funding',
      help: "The operator's recorded funding of the network's native coin left for network fees, in whole coins",
      labelNames: ['network'],
    },
    ({ feeFunding }, set) => {
      for (const { network, coins } of feeFunding) set({ network }, coins);
    },
  );
  gauge(
    {
      name: 'paygate_settlement_collector_shortfall',
      help: 'Token minor units the collector lacks for the settlement batches waiting on it, per asset',
      labelNames: ['asset'],
    },
    ({ settlements }, set) => {
      for (const { asset, needed, held } of settlements.shortfalls) set({ asset }, Number(needed - held));
    },
  );
  gauge(
    {
      name: 'paygate_job_queue_jobs',
      help: 'Background jobs per task and state: due (waiting for a worker), scheduled, running, given_up',
      labelNames: ['task', 'state'],
    },
    ({ jobs }, set) => {
      for (const job of jobs) {
        set({ task: job.task, state: 'due' }, job.due);
        set({ task: job.task, state: 'scheduled' }, job.scheduled);
        set({ task: job.task, state: 'running' }, job.running);
        set({ task: job.task, state: 'given_up' }, job.givenUp);
      }
    },
  );
  gauge(
    {
      name: 'paygate_job_queue_oldest_due_seconds',
      help: 'How long the oldest due job of the task has waited for a worker (0 when none is due)',
      labelNames: ['task'],
    },
    ({ jobs, checkedAt }, set) => {
      for (const job of jobs) set({ task: job.task }, job.oldestDueAt ? secondsSince(job.oldestDueAt, checkedAt) : 0);
    },
  );
  gauge(
    {
      name: 'paygate_webhook_deliveries_pending',
      help: 'Webhook deliveries not made yet, of which retrying: those whose endpoint already failed at least once',
      labelNames: ['state'],
    },
    ({ webhooks }, set) => {
      set({ state: 'first_attempt' }, webhooks.pending - webhooks.retrying);
      set({ state: 'retrying' }, webhooks.retrying);
    },
  );
  gauge(
    {
      name: 'paygate_webhook_oldest_pending_seconds',
      help: 'How long the oldest webhook delivery not made yet has waited (0 when none is pending)',
      labelNames: [],
    },
    ({ webhooks, checkedAt }, set) => {
      set({}, webhooks.oldestPendingSince ? secondsSince(webhooks.oldestPendingSince, checkedAt) : 0);
    },
  );
}
