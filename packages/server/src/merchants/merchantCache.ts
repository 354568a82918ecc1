import type { Selectable } from 'kysely';
import { Counter, type Registry } from 'prom-client';
import type { Db } from '../db/database.ts';
import type { ChannelSubscriber } from '../db/notifications.ts';
import type { Eventually } from '../http/eventually.ts';
import type { MerchantsTable } from '../db/schema.ts';
import { type SettlementDestinationRows, settlementDestinationRowsOf } from './settlementResource.ts';

/**
 * Notified with the merchant id by triggers on every insert, update and delete of a merchant (migration 0014) and of
 * one of its settlement destinations (migration 0022).
 */
export const MERCHANT_CHANGED_CHANNEL = 'merchant_changed';

/** The whole row, `deleted_at` included: callers decide what a deleted merchant means to them. */
export type CachedMerchant = Selectable<MerchantsTable>;

interface Entry {
  row: CachedMerchant;
  /** Loaded the first time they are asked for, and dropped with the row. */
  settlements?: SettlementDestinationRows;
  expiresAt: number;
}

export interface MerchantCacheOptions {
  /** How long an entry is served at most, even without an invalidation; 0 turns the cache off. */
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * Merchant rows (and, once asked for, their settlement destinations) in process memory, so the hot read paths cost
 * no database round-trip. Every change of a merchant or of its destinations, by any process, arrives as a notification on MERCHANT_CHANGED_CHANNEL and drops the entry. Entries are served
 * only while those notifications are being received: when the listener's connection is lost, everything is
 * dropped and reads go to the database until it listens again. Unknown ids are not remembered: they cost a query
 * as before, and ids chosen by callers cannot crowd real merchants out of the cache.
 */
export class MerchantCache implements ChannelSubscriber {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private listeningNow = false;
  /** Moves on every invalidation and connection change; a load that saw it move meanwhile may be stale. */
  private generation = 0;
  readonly reads = { memory: 0, database: 0 };

  constructor(
    private readonly db: Db,
    options: MerchantCacheOptions,
  ) {
    this.ttlMs = options.ttlMs;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** The merchant's row; synchronously when it is in memory. */
  get(merchantId: string): Eventually<CachedMerchant | undefined> {
    const entry = this.entries.get(merchantId);
    if (entry && entry.expiresAt > this.now()) {
      this.reads.memory++;
      return entry.row;
    }
    return this.load(merchantId);
  }

  private async load(merchantId: string): Promise<CachedMerchant | undefined> {
    const generation = this.generation;
    this.reads.database++;
    const row = await this.db.selectFrom('merchants').selectAll().where('id', '=', merchantId).executeTakeFirst();
    if (row && this.listeningNow && this.ttlMs > 0 && generation === this.generation) this.store(merchantId, row);
    return row;
  }

  /** The merchant's settlement destinations; synchronously when they are in memory beside its row. */
  settlementsOf(merchantId: string): Eventually<SettlementDestinationRows> {
    const entry = this.entries.get(merchantId);
    if (entry?.settlements && entry.expiresAt > this.now()) {
      this.reads.memory++;
      return entry.settlements;
    }
    return this.loadSettlements(merchantId);
  }

  private async loadSettlements(merchantId: string): Promise<SettlementDestinationRows> {
    const generation = this.generation;
    this.reads.database++;
    const settlements = await settlementDestinationRowsOf(this.db, merchantId);
    // Kept only beside a row in memory, so both go together on the next notification or expiry.
    const entry = this.entries.get(merchantId);
    if (entry && generation === this.generation) entry.settlements = settlements;
    return settlements;
  }

  /** Drops the merchant at once; the writing process calls it after its commit, so it reads its own writes. */
  invalidate(merchantId: string): void {
    this.generation++;
    this.entries.delete(merchantId);
  }

  notification(merchantId: string): void {
    this.invalidate(merchantId);
  }

  listening(listening: boolean): void {
    this.generation++;
    this.listeningNow = listening;
    this.entries.clear();
  }

  private store(merchantId: string, row: CachedMerchant): void {
    this.entries.delete(merchantId);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(merchantId, { row, expiresAt: this.now() + this.ttlMs });
  }
}

/** `paygate_merchant_reads_total`: merchant reads of the API by where they were answered, memory or database. */
export function registerMerchantCacheMetrics(registry: Registry, cache: MerchantCache): void {
  new Counter({
    name: 'paygate_merchant_reads_total',
    help: 'Merchant reads of the API, by where they were answered: the process memory or the database',
    labelNames: ['source'],
    registers: [registry],
    collect() {
      this.reset();
      this.labels('memory').inc(cache.reads.memory);
      this.labels('database').inc(cache.reads.database);
    },
  });
}
