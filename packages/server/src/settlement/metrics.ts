import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/database.ts';
import { shortfalls } from './batches.ts';

/**
 * `paygate_settlement_collector_shortfall`: per asset, how many token minor units the collector lacked for the
 * settlements waiting on it when last tried (absent once a batch of the asset goes out). Read from the database at
 * each scrape, so every process reports the same; alert on any value above 0.
 */
export function registerSettlementMetrics(registry: Registry, db: Db): void {
  new Gauge({
    name: 'paygate_settlement_collector_shortfall',
    help: 'Token minor units the collector lacks for the settlement batches waiting on it, per asset',
    labelNames: ['asset'],
    registers: [registry],
    async collect() {
      this.reset();
      // Without the database the gauge is left empty, so `/metrics` still serves the process's other metrics.
      const waiting = await shortfalls(db).catch(() => []);
      for (const shortfall of waiting) this.labels(shortfall.asset).set(Number(shortfall.needed - shortfall.held));
    },
  });
}
