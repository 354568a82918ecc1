import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const BASE = 'eip155:8453';
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

/** Payments of one merchant: [id, created at, status, currency, fiat minor units, token, network]. */
const PAYMENTS = [
  ['pay_rev_1', '2026-03-01T08:00:00Z', 'succeeded', 'USD', '1000', 'USDC', BASE],
  ['pay_rev_2', '2026-03-01T20:00:00Z', 'succeeded', 'USD', '250', 'USDC', SOLANA],
  ['pay_rev_3', '2026-03-02T09:30:00Z', 'succeeded', 'USD', '1999', 'USDT', BASE],
  ['pay_rev_4', '2026-03-02T10:00:00Z', 'failed', 'USD', '700', 'USDC', BASE],
  ['pay_rev_5', '2026-03-03T00:00:00Z', 'succeeded', 'EUR', '5000', 'EURC', BASE],
  ['pay_rev_6', '2026-03-03T23:59:59Z', 'succeeded', 'USD', '1', 'USDC', BASE],
  ['pay_rev_7', '2026-03-04T12:00:00Z', 'succeeded', 'USD', '300', 'USDC', BASE],
] as const;

describe('GET /v1/payments/revenue: succeeded revenue per day, currency, token and network', () => {
  let server: TestServer;
  let partner: TestPartner;
  const merchantId = 'mrch_revenue_shop';

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    await server.db
      .insertInto('merchants')
      .values({ id: merchantId, partner_id: partner.partnerId, name: 'Revenue shop', email: 'owner@revenue.example' })
      .execute();
    await server.db
      .insertInto('payments')
      .values(
        PAYMENTS.map(([id, createdAt, status, currency, value, symbol, network]) => ({
          id,
          partner_id: partner.partnerId,
          merchant_id: merchantId,
          reference_id: id,
          fiat_currency: currency,
          fiat_value: value,
          expires_at: new Date(Date.parse(createdAt) + 600_000),
          status,
          token_symbol: symbol,
          network,
          created_at: new Date(createdAt),
        })),
      )
      .execute();
  });
  afterAll(() => server?.close());

  const get = (query = '') => call(server, `/v1/payments/revenue${query}`, { headers: { 'api-key': partner.apiKey } });

  /** The list's statistics for the same filters, succeeded only: revenue per currency in standard units. */
  async function listedRevenue(query: string) {
    const list = await call(server, `/v1/payments?status=succeeded&limit=1${query}`, {
      headers: { 'api-key': partner.apiKey },
    });
    return Object.fromEntries(
      list.body.stats.totalRevenue.map((total: { currency: string; amount: number }) => [total.currency, total.amount]),
    );
  }

  /** The series' revenue per currency in standard units (all the test's currencies have two decimals). */
  function summed(rows: { currency: string; revenue: string }[]) {
    const minor: Record<string, bigint> = {};
    for (const row of rows) minor[row.currency] = (minor[row.currency] ?? 0n) + BigInt(row.revenue);
    return Object.fromEntries(Object.entries(minor).map(([currency, total]) => [currency, Number(total) / 100]));
  }

  describe('happy path', () => {
    it('gives each day, currency, token and network its succeeded payments and revenue, in order', async () => {
      const result = await get();
      expect(result.status).toBe(200);
      expect(result.body.data).toEqual([
        { day: '2026-03-01', currency: 'USD', tokenSymbol: 'USDC', network: BASE, payments: 1, revenue: '1000' },
        { day: '2026-03-01', currency: 'USD', tokenSymbol: 'USDC', network: SOLANA, payments: 1, revenue: '250' },
        { day: '2026-03-02', currency: 'USD', tokenSymbol: 'USDT', network: BASE, payments: 1, revenue: '1999' },
        { day: '2026-03-03', currency: 'EUR', tokenSymbol: 'EURC', network: BASE, payments: 1, revenue: '5000' },
        { day: '2026-03-03', currency: 'USD', tokenSymbol: 'USDC', network: BASE, payments: 1, revenue: '1' },
        { day: '2026-03-04', currency: 'USD', tokenSymbol: 'USDC', network: BASE, payments: 1, revenue: '300' },
      ]);
      expect(summed(result.body.data)).toEqual(await listedRevenue(''));
    });

    it('adds up to the list’s revenue for the same range, partial days included', async () => {
      for (const range of [
        '&startTs=2026-03-01T12:00:00Z&endTs=2026-03-03T23:00:00Z',
        '&startTs=2026-03-02T00:00:00Z&endTs=2026-03-04T00:00:00Z',
        '&startTs=2026-03-01T21:00:00Z&endTs=2026-03-01T22:00:00Z',
        '&startTs=2026-03-03T00:00:00Z',
        '&endTs=2026-03-02T09:30:00Z',
      ]) {
        const result = await get(`?${range.slice(1)}`);
        expect(result.status).toBe(200);
        expect([range, summed(result.body.data)]).toEqual([range, await listedRevenue(range)]);
      }
      const partial = await get('?startTs=2026-03-01T12:00:00Z&endTs=2026-03-03T23:00:00Z');
      expect(partial.body.data.map((row: { day: string; revenue: string }) => [row.day, row.revenue])).toEqual([
        ['2026-03-01', '250'],
        ['2026-03-02', '1999'],
        ['2026-03-03', '5000'],
      ]);
    });

    it('narrows by token, network and merchant', async () => {
      const usdc = await get('?token_symbol=usdc');
      expect(usdc.body.data.map((row: { revenue: string }) => row.revenue)).toEqual(['1000', '250', '1', '300']);
      const solana = await get(`?network=${SOLANA}`);
      expect(solana.body.data).toEqual([
        { day: '2026-03-01', currency: 'USD', tokenSymbol: 'USDC', network: SOLANA, payments: 1, revenue: '250' },
      ]);
      const ofMerchant = await get(`?merchantId=${merchantId}`);
      expect(ofMerchant.body.data).toHaveLength(6);
    });
  });

  describe('errors', () => {
    it('refuses a range that ends before it starts, and another partner’s merchant', async () => {
      const backwards = await get('?startTs=2026-03-02T00:00:00Z&endTs=2026-03-01T00:00:00Z');
      expect([backwards.status, expectErrorBody(backwards).code]).toEqual([400, 'params_validation']);
      const other = await newPartner(server.db, 'Other partner');
      const theirs = (await createMerchant(server, other.apiKey)).id;
      const foreign = await get(`?merchantId=${theirs}`);
      expect([foreign.status, expectErrorBody(foreign).code]).toEqual([404, 'merchant_not_found']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/payments/revenue',
  scope: 'payments',
  request: async () => ({ method: 'GET', path: '/v1/payments/revenue' }),
});
