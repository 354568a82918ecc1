import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import {
  BASE_TIME,
  changeSomePayments,
  DAY,
  expected,
  insertPayments,
  NETWORKS,
  type Query,
  queryString,
  randomPayments,
  type Seeded,
} from './support/paymentListModel.ts';

const STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'expired'];
const PREVIEW = { 'pay-version': '2026-02-19.preview' };

describe('GET /v1/payments/status-counts: the list in each status, in one request', () => {
  let server: TestServer;
  let partner: TestPartner;
  let other: TestPartner;
  let merchantIds: string[];
  const payments: Seeded[] = [];

  const counts = (query: string, headers: Record<string, string> = {}, apiKey = partner.apiKey) =>
    call(server, `/v1/payments/status-counts?${query}`, { headers: { 'api-key': apiKey, ...headers } });
  /** The list's own count of a status for the same filters. */
  const listed = async (query: string, status: string, headers: Record<string, string> = {}) =>
    (
      await call(server, `/v1/payments?${query}&status=${status}&limit=1`, {
        headers: { 'api-key': partner.apiKey, ...headers },
      })
    ).body.stats.totalTransactions as number;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    other = await newPartner(server.db, 'Other partner');
    merchantIds = [];
    for (const name of ['North Shop', 'South Shop']) {
      merchantIds.push(
        (await createMerchant(server, partner.apiKey, { merchantName: name, merchantEmail: 'owner@shops.example' })).id,
      );
    }
    payments.push(...randomPayments(80, 11, merchantIds));
    await insertPayments(server.db, partner.partnerId, payments);
    await insertPayments(
      server.db,
      other.partnerId,
      randomPayments(20, 12, [(await createMerchant(server, other.apiKey)).id]),
    );
    // Some totals folded, some changes left as deltas: the counts read both, as the list's statistics do.
    expect(await foldPaymentStats(server.db)).toBeGreaterThanOrEqual(payments.length);
    await changeSomePayments(server.db, payments);
  });
  afterAll(() => server.close());

  describe('happy path', () => {
    it("equals a plain model of the payments, and the list's own count, for every filter", async () => {
      const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
        fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
      const query = fc.record({
        merchant: sometimes(fc.constantFrom(0, 1)),
        symbols: sometimes(fc.uniqueArray(fc.constantFrom('USDC', 'usdt', 'EURC'), { minLength: 1, maxLength: 2 })),
        networks: sometimes(fc.uniqueArray(fc.constantFrom(...NETWORKS), { minLength: 1, maxLength: 2 })),
        // Bounds inside a day as well as on its start: whole days and partial days are counted differently.
        start: sometimes(
          fc
            .tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom(0, 30, 3600))
            .map(([day, seconds]) => BASE_TIME + day * DAY + seconds * 1000),
        ),
        end: sometimes(
          fc
            .tuple(fc.integer({ min: 41, max: 70 }), fc.constantFrom(0, 45))
            .map(([day, seconds]) => BASE_TIME + day * DAY + seconds * 1000),
        ),
        referenceId: sometimes(fc.constantFrom('order-1', '-usd')),
        search: sometimes(fc.constantFrom(`0x${'3'.padStart(40, '0')}`, 'ORDER-2')),
        source: sometimes(fc.constantFrom('api' as const, 'x402' as const)),
      });
      const unfiltered = {
        merchant: undefined,
        symbols: undefined,
        networks: undefined,
        start: undefined,
        end: undefined,
        referenceId: undefined,
        search: undefined,
        source: undefined,
      };
      await fc.assert(
        fc.asyncProperty(query, async ({ merchant, ...filters }) => {
          const merchantId = merchant === undefined ? undefined : merchantIds[merchant]!;
          const scoped = merchantId ? payments.filter((payment) => payment.merchant_id === merchantId) : payments;
          const model: Query = { ...filters, sortBy: 'date', sortDir: 'desc', limit: 1 };
          const asked = new URLSearchParams(queryString(model));
          for (const name of ['sortBy', 'sortDir', 'limit']) asked.delete(name);
          if (merchantId) asked.set('merchantId', merchantId);
          const answer = await counts(asked.toString());
          expect(answer.status, answer.text).toBe(200);
          const now = new Date();
          expect(answer.body.data).toEqual(
            STATUSES.map((status) => ({
              status,
              payments: expected(scoped, { ...model, statuses: [status] }, now).stats.totalTransactions,
            })),
          );
        }),
        {
          numRuns: 25,
          examples: [
            [unfiltered],
            [{ ...unfiltered, merchant: 1, source: 'x402' }],
            [{ ...unfiltered, referenceId: '-usd' }],
            [{ ...unfiltered, search: `0x${'3'.padStart(40, '0')}` }],
          ],
        },
      );
    });

    it("counts cancelled payments apart from 2026-02-19.preview, as the list's status=cancelled does", async () => {
      const answer = await counts('', PREVIEW);
      expect(answer.body.data.map((entry: { status: string }) => entry.status)).toEqual([...STATUSES, 'cancelled']);
      const cancelled = answer.body.data.find((entry: { status: string }) => entry.status === 'cancelled').payments;
      expect(cancelled).toBe(payments.filter((payment) => payment.status === 'cancelled').length);
      expect(cancelled).toBe(await listed('', 'cancelled', PREVIEW));
      expect(cancelled).toBeGreaterThan(0);
      for (const entry of answer.body.data) expect(entry.payments).toBe(await listed('', entry.status, PREVIEW));
    });
  });

  describe('errors', () => {
    it.each([
      ['network=base', 400, 'params_validation'],
      ['startTs=yesterday', 400, 'params_validation'],
      ['startTs=2026-02-01T00:00:00Z&endTs=2026-01-01T00:00:00Z', 400, 'params_validation'],
      ['source=wallet', 400, 'params_validation'],
      ['status=succeeded', 400, 'params_validation'],
      ['merchantId=mrch_unknown', 404, 'merchant_not_found'],
    ])('refuses %s with %i %s', async (query, status, code) => {
      const answer = await counts(query);
      expect([answer.status, expectErrorBody(answer).code]).toEqual([status, code]);
    });
  });

  describe('security', () => {
    it("counts only the partner's own payments; another partner's merchant is not found", async () => {
      const ours = (await counts('')).body.data as { payments: number }[];
      expect(ours.reduce((sum, entry) => sum + entry.payments, 0)).toBe(payments.length);
      const theirs = await counts(`merchantId=${merchantIds[0]}`, {}, other.apiKey);
      expect([theirs.status, expectErrorBody(theirs).code]).toEqual([404, 'merchant_not_found']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/payments/status-counts',
  scope: 'payments',
  request: async () => ({ method: 'GET', path: '/v1/payments/status-counts' }),
});
