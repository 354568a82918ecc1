import fc from 'fast-check';
import type { Db } from '../../../src/db/database.ts';
import type { PaymentSource, PaymentStatus } from '../../../src/db/schema.ts';
import { newId } from '../../../src/ids.ts';

/** A payment as the list tests write it straight into the database. */
export interface Seeded {
  id: string;
  merchant_id: string;
  reference_id: string;
  status: PaymentStatus;
  fiat_currency: string;
  fiat_value: bigint;
  expires_at: Date;
  created_at: Date;
  token_symbol: string | null;
  network: string | null;
  buyer_account: string | null;
  expiry_awaits_follower: boolean;
  source: PaymentSource;
}

export const NETWORKS = ['eip155:8453', 'eip155:1', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'];
export const SYMBOLS = ['USDC', 'USDT', 'EURC'];
const STATUSES: PaymentStatus[] = ['requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled'];
export const DAY = 24 * 60 * 60 * 1000;
export const BASE_TIME = Date.UTC(2026, 0, 1);

/** The list's rules restated plainly, to compare the SQL against. */
function listedStatus(payment: Seeded, now: Date): string {
  // One with a deposit address stays unpaid until the expiry sweep decides.
  if (payment.status === 'requires_action' && payment.expires_at <= now && !payment.expiry_awaits_follower)
    return 'expired';
  return payment.status === 'cancelled' ? 'failed' : payment.status;
}

/** Whether a payment is matched by one value of the status filter: `cancelled` is the cancelled ones, listed as failed. */
function matchesStatus(payment: Seeded, status: string, now: Date): boolean {
  return status === 'cancelled' ? payment.status === 'cancelled' : listedStatus(payment, now) === status;
}

/** A search: the payment's id, its buyer's account or that account's address alone, or a part of its reference. */
function matchesSearch(payment: Seeded, search: string): boolean {
  const lower = search.toLowerCase();
  return (
    payment.id === search ||
    payment.buyer_account === search ||
    (payment.buyer_account?.toLowerCase().endsWith(`:${lower}`) ?? false) ||
    payment.reference_id.toLowerCase().includes(lower)
  );
}

export interface Query {
  statuses?: string[];
  symbols?: string[];
  networks?: string[];
  start?: number;
  end?: number;
  referenceId?: string;
  search?: string;
  source?: PaymentSource;
  sortBy: 'date' | 'amount';
  sortDir: 'asc' | 'desc';
  limit: number;
}

/** The ids a list query must return, in order, and its statistics. */
export function expected(payments: Seeded[], query: Query, now: Date) {
  const matching = payments.filter((payment) => {
    if (query.statuses && !query.statuses.some((status) => matchesStatus(payment, status, now))) return false;
    if (
      query.symbols &&
      !(payment.token_symbol && query.symbols.map((symbol) => symbol.toUpperCase()).includes(payment.token_symbol))
    )
      return false;
    if (query.networks && !(payment.network && query.networks.includes(payment.network))) return false;
    if (query.start !== undefined && payment.created_at.getTime() < query.start) return false;
    if (query.end !== undefined && payment.created_at.getTime() >= query.end) return false;
    if (query.referenceId && !payment.reference_id.toLowerCase().includes(query.referenceId.toLowerCase()))
      return false;
    if (query.search && !matchesSearch(payment, query.search)) return false;
    if (query.source && payment.source !== query.source) return false;
    return true;
  });
  const key = (payment: Seeded) =>
    query.sortBy === 'amount' ? payment.fiat_value : BigInt(payment.created_at.getTime());
  const sorted = [...matching].sort((a, b) => {
    const order = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return query.sortDir === 'asc' ? order : -order;
  });
  const revenue = new Map<string, bigint>();
  for (const payment of matching) {
    if (listedStatus(payment, now) === 'succeeded')
      revenue.set(payment.fiat_currency, (revenue.get(payment.fiat_currency) ?? 0n) + payment.fiat_value);
  }
  return {
    ids: sorted.map((payment) => payment.id),
    stats: {
      totalRevenue: [...revenue]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([currency, total]) => ({
          amount: Number(currency === 'JPY' ? total.toString() : (Number(total) / 100).toFixed(2)),
          currency,
        })),
      // The seeded payments have no refunds.
      totalRefunded: [],
      totalTransactions: matching.length,
      totalCustomers: new Set(matching.map((payment) => payment.buyer_account).filter(Boolean)).size,
    },
  };
}

/** The current list's query string for `query`. */
export function queryString(query: Query, cursor?: string): string {
  const params = new URLSearchParams();
  for (const status of query.statuses ?? []) params.append('status', status);
  for (const symbol of query.symbols ?? []) params.append('token_symbol', symbol);
  if (query.networks) params.set('network', query.networks.join(','));
  if (query.start !== undefined) params.set('startTs', new Date(query.start).toISOString());
  if (query.end !== undefined) params.set('endTs', new Date(query.end).toISOString());
  if (query.referenceId) params.set('referenceId', query.referenceId);
  if (query.search) params.set('search', query.search);
  if (query.source) params.set('source', query.source);
  params.set('sortBy', query.sortBy);
  params.set('sortDir', query.sortDir);
  params.set('limit', String(query.limit));
  if (cursor) params.set('cursor', cursor);
  return params.toString();
}

/**
 * `count` random payments spread over `merchantIds`, drawn from `seed`. Buyer accounts come from one small set, so
 * one buyer pays several merchants.
 */
export function randomPayments(count: number, seed: number, merchantIds: string[]): Seeded[] {
  const drawn = fc.sample(
    fc.record({
      status: fc.constantFrom(...STATUSES),
      currency: fc.constantFrom('USD', 'USD', 'EUR', 'JPY'),
      value: fc.constantFrom(100n, 250n, 999n, 1000n, 12345n),
      day: fc.integer({ min: 0, max: 60 }),
      tiedTime: fc.boolean(),
      symbol: fc.option(fc.constantFrom(...SYMBOLS)),
      network: fc.constantFrom(...NETWORKS),
      buyer: fc.option(fc.integer({ min: 1, max: 12 })),
      expired: fc.boolean(),
      depositAddress: fc.boolean(),
      merchant: fc.constantFrom(...merchantIds),
    }),
    { numRuns: count, seed },
  );
  return drawn.map((entry, index) => {
    const paid = entry.status !== 'requires_action' && entry.status !== 'expired' && entry.status !== 'cancelled';
    return {
      id: newId('pay'),
      merchant_id: entry.merchant,
      reference_id: `Order-${index}-${entry.currency}`,
      status: entry.status,
      fiat_currency: entry.currency,
      fiat_value: entry.value,
      expires_at: new Date(entry.expired ? Date.now() - DAY : Date.now() + DAY),
      created_at: new Date(BASE_TIME + entry.day * DAY + (entry.tiedTime ? 0 : index * 1000)),
      token_symbol: paid ? entry.symbol : null,
      network: paid && entry.symbol ? entry.network : null,
      buyer_account: paid && entry.buyer ? `eip155:8453:0x${entry.buyer.toString(16).padStart(40, '0')}` : null,
      expiry_awaits_follower: entry.depositAddress,
      // Every fifth an agent's, outside the sample, so the seeds keep drawing the same payments.
      source: index % 5 === 0 ? 'x402' : 'api',
    };
  });
}

export async function insertPayments(db: Db, partnerId: string, payments: Seeded[]): Promise<void> {
  await db
    .insertInto('payments')
    .values(payments.map((payment) => ({ ...payment, partner_id: partnerId, updated_at: payment.created_at })))
    .execute();
}

/**
 * Statistics are kept as running totals: changes some payments after insertion (unpaid ones paid, paid ones
 * cancelled without their buyer), so a model over `payments` also covers updates, left as deltas not yet folded.
 */
export async function changeSomePayments(db: Db, payments: Seeded[]): Promise<void> {
  for (const payment of payments.filter((candidate) => candidate.status === 'requires_action').slice(0, 6)) {
    Object.assign(payment, {
      status: 'succeeded',
      token_symbol: 'USDC',
      network: NETWORKS[0],
      buyer_account: `eip155:8453:0x${'b'.repeat(40)}`,
    });
    await db
      .updateTable('payments')
      .set({
        status: payment.status,
        token_symbol: payment.token_symbol,
        network: payment.network,
        buyer_account: payment.buyer_account,
      })
      .where('id', '=', payment.id)
      .execute();
  }
  for (const payment of payments.filter((candidate) => candidate.buyer_account !== null).slice(0, 4)) {
    Object.assign(payment, { buyer_account: null, status: 'cancelled' });
    await db
      .updateTable('payments')
      .set({ buyer_account: null, status: 'cancelled' })
      .where('id', '=', payment.id)
      .execute();
  }
}
