import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentStatus } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { foldPaymentStats } from '../../src/payments/paymentStatsFold.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

interface Seeded {
  id: string;
  reference_id: string;
  status: PaymentStatus;
  fiat_currency: string;
  fiat_value: bigint;
  expires_at: Date;
  created_at: Date;
  token_symbol: string | null;
  network: string | null;
  buyer_account: string | null;
}

const NETWORKS = ['eip155:8453', 'eip155:1', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'];
const SYMBOLS = ['USDC', 'USDT', 'EURC'];
const STATUSES: PaymentStatus[] = ['requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled'];
const DAY = 24 * 60 * 60 * 1000;
const BASE_TIME = Date.UTC(2026, 0, 1);

/** The list's rules restated plainly, to compare the SQL against. */
function listedStatus(payment: Seeded, now: Date): string {
  if (payment.status === 'requires_action' && payment.expires_at <= now) return 'expired';
  return payment.status === 'cancelled' ? 'failed' : payment.status;
}

interface Query {
  statuses?: string[];
  symbols?: string[];
  networks?: string[];
  start?: number;
  end?: number;
  referenceId?: string;
  sortBy: 'date' | 'amount';
  sortDir: 'asc' | 'desc';
  limit: number;
}

function expected(payments: Seeded[], query: Query, now: Date) {
  const matching = payments.filter((payment) => {
    if (query.statuses && !query.statuses.includes(listedStatus(payment, now))) return false;
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
      totalTransactions: matching.length,
      totalCustomers: new Set(matching.map((payment) => payment.buyer_account).filter(Boolean)).size,
    },
  };
}

function queryString(query: Query, cursor?: string): string {
  const params = new URLSearchParams();
  for (const status of query.statuses ?? []) params.append('status', status);
  for (const symbol of query.symbols ?? []) params.append('token_symbol', symbol);
  if (query.networks) params.set('network', query.networks.join(','));
  if (query.start !== undefined) params.set('startTs', new Date(query.start).toISOString());
  if (query.end !== undefined) params.set('endTs', new Date(query.end).toISOString());
  if (query.referenceId) params.set('referenceId', query.referenceId);
  params.set('sortBy', query.sortBy);
  params.set('sortDir', query.sortDir);
  params.set('limit', String(query.limit));
  if (cursor) params.set('cursor', cursor);
  return params.toString();
}

describe('GET /v1/merchants/payments', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  const payments: Seeded[] = [];

  const list = (query: string, headers: Record<string, string> = {}) =>
    call(server, `/v1/merchants/payments?${query}`, {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId, ...headers },
    });

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
    const random = fc.sample(
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
      }),
      { numRuns: 80, seed: 42 },
    );
    random.forEach((entry, index) => {
      const paid = entry.status !== 'requires_action' && entry.status !== 'expired' && entry.status !== 'cancelled';
      payments.push({
        id: newId('pay'),
        reference_id: `Order-${index}-${entry.currency}`,
        status: entry.status,
        fiat_currency: entry.currency,
        fiat_value: entry.value,
        expires_at: new Date(entry.expired ? Date.now() - DAY : Date.now() + DAY),
        created_at: new Date(BASE_TIME + entry.day * DAY + (entry.tiedTime ? 0 : index * 1000)),
        token_symbol: paid ? entry.symbol : null,
        network: paid && entry.symbol ? entry.network : null,
        buyer_account: paid && entry.buyer ? `eip155:8453:0x${entry.buyer.toString(16).padStart(40, '0')}` : null,
      });
    });
    await server.db
      .insertInto('payments')
      .values(
        payments.map((payment) => ({
          ...payment,
          partner_id: partner.partnerId,
          merchant_id: merchantId,
          updated_at: payment.created_at,
        })),
      )
      .execute();
    // Other processes on this database may fold too; at least this file's inserts are folded here.
    expect(await foldPaymentStats(server.db)).toBeGreaterThanOrEqual(payments.length);
    // Statistics are kept as running totals: change some payments after insertion so the model also covers updates,
    // left as deltas not yet folded.
    for (const payment of payments.filter((candidate) => candidate.status === 'requires_action').slice(0, 6)) {
      Object.assign(payment, {
        status: 'succeeded',
        token_symbol: 'USDC',
        network: NETWORKS[0],
        buyer_account: `eip155:8453:0x${'b'.repeat(40)}`,
      });
      await server.db
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
      await server.db
        .updateTable('payments')
        .set({ buyer_account: null, status: 'cancelled' })
        .where('id', '=', payment.id)
        .execute();
    }
  });
  afterAll(() => server.close());

  it('matches a plain in-memory model for every filter, sort and page size: same items, same order, same stats', async () => {
    // Each filter is absent two times in three, so most queries match something and the model is exercised.
    const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
    const query = fc.record({
      statuses: sometimes(
        fc.uniqueArray(fc.constantFrom('requires_action', 'processing', 'succeeded', 'failed', 'expired'), {
          minLength: 1,
          maxLength: 3,
        }),
      ),
      symbols: sometimes(fc.uniqueArray(fc.constantFrom('USDC', 'usdt', 'EURC'), { minLength: 1, maxLength: 2 })),
      networks: sometimes(fc.uniqueArray(fc.constantFrom(...NETWORKS), { minLength: 1, maxLength: 2 })),
      // Bounds inside a day as well as on its start: whole days and partial days are counted differently.
      start: sometimes(
        fc
          .tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom(0, 30, 61, 3600))
          .map(([day, seconds]) => BASE_TIME + day * DAY + seconds * 1000),
      ),
      end: sometimes(
        fc
          .tuple(fc.integer({ min: 41, max: 70 }), fc.constantFrom(0, 45, 3600))
          .map(([day, seconds]) => BASE_TIME + day * DAY + seconds * 1000),
      ),
      referenceId: sometimes(fc.constantFrom('order-1', 'ORDER-2', '-usd', '0-E')),
      sortBy: fc.constantFrom('date' as const, 'amount' as const),
      sortDir: fc.constantFrom('asc' as const, 'desc' as const),
      limit: fc.integer({ min: 1, max: 30 }),
    });
    let queriesWithResults = 0;
    await fc.assert(
      fc.asyncProperty(query, async (generated) => {
        const want = expected(payments, generated, new Date());
        if (want.ids.length > 1) queriesWithResults += 1;
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 100; page++) {
          const result = await list(queryString(generated, cursor));
          expect(result.status, result.text).toBe(200);
          expect(result.body.data.length).toBeLessThanOrEqual(generated.limit);
          seen.push(...result.body.data.map((item: { paymentId: string }) => item.paymentId));
          expect(result.body.stats).toEqual(want.stats);
          cursor = result.body.nextCursor ?? undefined;
          if (!cursor) break;
        }
        expect(seen).toEqual(want.ids);
      }),
      {
        numRuns: 40,
        // Each rule of the list is met at least once whatever the random draw.
        examples: [
          [{ statuses: ['failed'], sortBy: 'date', sortDir: 'desc', limit: 7 }],
          [{ statuses: ['expired'], sortBy: 'amount', sortDir: 'asc', limit: 5 }],
          [{ statuses: ['requires_action', 'succeeded'], sortBy: 'date', sortDir: 'asc', limit: 4 }],
          [{ symbols: ['usdt'], networks: [NETWORKS[0] as string], sortBy: 'amount', sortDir: 'desc', limit: 3 }],
          [
            {
              referenceId: '-usd',
              start: BASE_TIME + 10 * DAY,
              end: BASE_TIME + 50 * DAY,
              sortBy: 'date',
              sortDir: 'desc',
              limit: 6,
            },
          ],
          [{ sortBy: 'amount', sortDir: 'asc', limit: 9 }],
          [
            {
              statuses: ['requires_action'],
              start: BASE_TIME + 3 * DAY + 30_000,
              end: BASE_TIME + 55 * DAY + 45_000,
              sortBy: 'date',
              sortDir: 'asc',
              limit: 8,
            },
          ],
          [
            {
              statuses: ['expired', 'failed'],
              symbols: ['USDC'],
              start: BASE_TIME + DAY + 61_000,
              sortBy: 'date',
              sortDir: 'desc',
              limit: 8,
            },
          ],
        ] as [Query][],
      },
    );
    expect(queriesWithResults).toBeGreaterThan(10);
  });

  it('gives the same statistics before and after the pending deltas are folded into the daily totals', async () => {
    const pendingDeltas = async () =>
      Number(
        (
          await server.db
            .selectFrom('payment_stats_deltas')
            .select((eb) => eb.fn.countAll<string>().as('count'))
            .where('merchant_id', '=', merchantId)
            .executeTakeFirstOrThrow()
        ).count,
      );
    const before = await list('status=succeeded&status=failed&limit=1');
    await foldPaymentStats(server.db);
    expect(await pendingDeltas()).toBe(0);
    const after = await list('status=succeeded&status=failed&limit=1');
    expect(after.body.stats).toEqual(before.body.stats);
    expect(after.body.stats).toEqual(
      expected(payments, { statuses: ['succeeded', 'failed'], sortBy: 'date', sortDir: 'desc', limit: 1 }, new Date())
        .stats,
    );
  });

  it('shows the Payment item shape and states the version', async () => {
    const result = await list('limit=1&sortBy=date&sortDir=asc');
    expect(result.headers.get('pay-version')).toBe('2026-02-18');
    const item = result.body.data[0];
    expect(Object.keys(item)).toEqual(
      expect.arrayContaining([
        'paymentId',
        'merchant',
        'referenceId',
        'status',
        'isTerminal',
        'fiatAmount',
        'createdAt',
        'lastUpdatedAt',
      ]),
    );
    expect(item.merchant.id).toBe(merchantId);
  });

  it('accepts the deprecated asset parameter with a Deprecation header, and refuses it in the preview version', async () => {
    const withAsset = await list('asset=USDC');
    expect(withAsset.status).toBe(200);
    expect(withAsset.headers.get('deprecation')).toBe('true');
    const viaSymbol = await list('token_symbol=USDC');
    expect(withAsset.body.stats).toEqual(viaSymbol.body.stats);
    const preview = await list('asset=USDC', { 'pay-version': '2026-02-19.preview' });
    expect([preview.status, expectErrorBody(preview).code]).toEqual([400, 'params_validation']);
  });

  it.each([
    ['limit=0'],
    ['limit=201'],
    ['status=cancelled'],
    ['sortBy=name'],
    ['sortDir=up'],
    ['referenceId=ab'],
    [`referenceId=${'a'.repeat(36)}`],
    ['referenceId=50%25_off'],
    ['startTs=yesterday'],
    ['token_symbol='],
    ['network=base'],
    ['startTs=2026-02-01T00:00:00Z&endTs=2026-01-01T00:00:00Z'],
  ])('refuses %s with params_validation', async (query) => {
    const result = await list(query);
    expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
  });

  it('refuses a tampered cursor or one from another query with invalid_params', async () => {
    const first = await list('limit=2');
    const cursor: string = first.body.nextCursor;
    const otherQuery = await list(`limit=2&sortBy=amount&cursor=${encodeURIComponent(cursor)}`);
    expect([otherQuery.status, expectErrorBody(otherQuery).code]).toEqual([400, 'invalid_params']);
    const tampered = await list(`limit=2&cursor=${encodeURIComponent(`x${cursor}`)}`);
    expect([tampered.status, expectErrorBody(tampered).code]).toEqual([400, 'invalid_params']);
  });

  it('needs Merchant-Id', async () => {
    const result = await call(server, '/v1/merchants/payments', { headers: { 'api-key': partner.apiKey } });
    expect([result.status, expectErrorBody(result).code]).toEqual([401, 'missing_merchant_id']);
  });
});

runCommonRouteTests({
  name: 'GET /v1/merchants/payments',
  scope: 'payments',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'GET',
    path: '/v1/merchants/payments',
    headers: { 'merchant-id': (await createMerchant(server, partner.apiKey)).id },
  }),
});
