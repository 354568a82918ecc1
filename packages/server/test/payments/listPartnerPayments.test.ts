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

const PREVIEW = { 'pay-version': '2026-02-19.preview' };

describe('GET /v1/payments', () => {
  let server: TestServer;
  let partner: TestPartner;
  let other: TestPartner;
  let merchantIds: string[];
  let deletedMerchantId: string;
  let otherMerchantId: string;
  const payments: Seeded[] = [];
  const merchantNames = new Map<string, string>();

  const list = (query: string, headers: Record<string, string> = {}) =>
    call(server, `/v1/payments?${query}`, { headers: { 'api-key': partner.apiKey, ...headers } });
  const idsOf = (body: { data: { paymentId: string }[] }) => body.data.map((item) => item.paymentId);

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    other = await newPartner(server.db, 'Other partner');
    merchantIds = [];
    for (const name of ['North Shop', 'South Shop', 'Closed Shop']) {
      const merchant = await createMerchant(server, partner.apiKey, {
        merchantName: name,
        merchantEmail: 'owner@shops.example',
      });
      merchantIds.push(merchant.id);
      merchantNames.set(merchant.id, name);
    }
    deletedMerchantId = merchantIds[2]!;
    otherMerchantId = (await createMerchant(server, other.apiKey)).id;

    payments.push(...randomPayments(90, 7, merchantIds));
    await insertPayments(server.db, partner.partnerId, payments);
    // Another partner's payments, with the same buyers, days and references: none may show up or count.
    await insertPayments(server.db, other.partnerId, randomPayments(30, 8, [otherMerchantId]));
    expect(await foldPaymentStats(server.db)).toBeGreaterThanOrEqual(payments.length);
    await changeSomePayments(server.db, payments);
    // A deleted merchant keeps its payments on the partner's list.
    await server.db
      .updateTable('merchants')
      .set({ deleted_at: new Date() })
      .where('id', '=', deletedMerchantId)
      .execute();
  });
  afterAll(() => server.close());

  describe('happy path', () => {
    it("matches a plain model of every merchant's payments, or one merchant's, for every filter, sort and page size", async () => {
      const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
        fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
      const query = fc.record({
        merchant: sometimes(fc.constantFrom(0, 1, 2)),
        statuses: sometimes(
          fc.uniqueArray(
            fc.constantFrom('requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled'),
            {
              minLength: 1,
              maxLength: 3,
            },
          ),
        ),
        symbols: sometimes(fc.uniqueArray(fc.constantFrom('USDC', 'usdt', 'EURC'), { minLength: 1, maxLength: 2 })),
        networks: sometimes(fc.uniqueArray(fc.constantFrom(...NETWORKS), { minLength: 1, maxLength: 2 })),
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
        referenceId: sometimes(fc.constantFrom('order-1', '-usd', '0-E')),
        // A payment's id, a buyer's account and its address alone (upper case), a part of a reference, nothing.
        search: sometimes(
          fc.constantFrom(
            payments[7]!.id,
            `eip155:8453:0x${'5'.padStart(40, '0')}`,
            `0X${'A'.padStart(40, '0')}`,
            'ORDER-1',
            'nothing_like_it',
          ),
        ),
        source: sometimes(fc.constantFrom('api' as const, 'x402' as const)),
        sortBy: fc.constantFrom('date' as const, 'amount' as const),
        sortDir: fc.constantFrom('asc' as const, 'desc' as const),
        limit: fc.integer({ min: 1, max: 30 }),
      });
      let queriesWithResults = 0;
      await fc.assert(
        fc.asyncProperty(query, async ({ merchant, ...generated }) => {
          const merchantId = merchant === undefined ? undefined : merchantIds[merchant]!;
          const scoped = merchantId ? payments.filter((payment) => payment.merchant_id === merchantId) : payments;
          const want = expected(scoped, generated as Query, new Date());
          if (want.ids.length > 1) queriesWithResults += 1;
          const seen: string[] = [];
          let cursor: string | undefined;
          for (let page = 0; page < 100; page++) {
            const filter = merchantId ? `&merchantId=${merchantId}` : '';
            const result = await list(`${queryString(generated as Query, cursor)}${filter}`, PREVIEW);
            expect(result.status, result.text).toBe(200);
            expect(result.body.stats).toEqual(want.stats);
            for (const item of result.body.data) {
              const payment = payments.find((candidate) => candidate.id === item.paymentId);
              expect(item.merchant).toMatchObject({
                id: payment?.merchant_id,
                name: merchantNames.get(payment?.merchant_id ?? ''),
              });
            }
            seen.push(...idsOf(result.body));
            cursor = result.body.nextCursor ?? undefined;
            if (!cursor) break;
          }
          expect(seen).toEqual(want.ids);
        }),
        {
          numRuns: 30,
          examples: [
            [{ sortBy: 'date', sortDir: 'desc', limit: 25 }],
            [{ statuses: ['cancelled'], sortBy: 'amount', sortDir: 'asc', limit: 4 }],
            [{ merchant: 2, statuses: ['failed'], sortBy: 'date', sortDir: 'asc', limit: 5 }],
            [
              {
                statuses: ['expired', 'succeeded'],
                start: BASE_TIME + 3 * DAY + 30_000,
                sortBy: 'date',
                sortDir: 'desc',
                limit: 7,
              },
            ],
            [{ symbols: ['USDC'], networks: [NETWORKS[0] as string], sortBy: 'amount', sortDir: 'desc', limit: 3 }],
            [{ search: `0x${'3'.padStart(40, '0')}`, sortBy: 'date', sortDir: 'desc', limit: 2 }],
          ] as [Query & { merchant?: number }][],
        },
      );
      expect(queriesWithResults).toBeGreaterThan(8);
    });

    it('counts a buyer of several merchants once among the customers', async () => {
      const byBuyer = new Map<string, Set<string>>();
      for (const payment of payments.filter((candidate) => candidate.buyer_account)) {
        const merchants = byBuyer.get(payment.buyer_account!) ?? new Set();
        merchants.add(payment.merchant_id);
        byBuyer.set(payment.buyer_account!, merchants);
      }
      expect([...byBuyer.values()].some((merchants) => merchants.size > 1)).toBe(true);
      const perMerchant = await Promise.all(
        merchantIds.map(async (merchantId) => (await list(`merchantId=${merchantId}`)).body.stats.totalCustomers),
      );
      const all = await list('');
      expect(all.body.stats.totalCustomers).toBe(byBuyer.size);
      expect(all.body.stats.totalCustomers).toBeLessThan(perMerchant.reduce((sum, count) => sum + count, 0));
    });

    it("lists a deleted merchant's payments, also under its merchantId", async () => {
      const deletedPayments = payments.filter((payment) => payment.merchant_id === deletedMerchantId);
      expect(deletedPayments.length).toBeGreaterThan(0);
      const result = await list(`merchantId=${deletedMerchantId}&limit=200`);
      expect(result.status, result.text).toBe(200);
      expect(new Set(idsOf(result.body))).toEqual(new Set(deletedPayments.map((payment) => payment.id)));
      expect(result.body.data[0].merchant).toMatchObject({ id: deletedMerchantId, name: 'Closed Shop' });
    });

    it('narrows to several merchants with merchantId repeated, as the parameter is documented, page and statistics alike', async () => {
      const [north, , closed] = merchantIds as [string, string, string];
      const theirs = payments.filter((payment) => payment.merchant_id === north || payment.merchant_id === closed);
      const result = await list(`merchantId=${north}&merchantId=${closed}&merchantId=${north}&limit=200`);
      expect(result.status, result.text).toBe(200);
      expect(new Set(idsOf(result.body))).toEqual(new Set(theirs.map((payment) => payment.id)));
      expect(result.body.stats.totalTransactions).toBe(theirs.length);
      expect(result.body.stats.totalCustomers).toBe(
        new Set(theirs.flatMap((payment) => payment.buyer_account ?? [])).size,
      );
      // One unknown among them refuses the whole request.
      const mixed = await list(`merchantId=${north}&merchantId=${otherMerchantId}`);
      expect([mixed.status, expectErrorBody(mixed).code]).toEqual([404, 'merchant_not_found']);
    });

    it('needs no Merchant-Id, and a Merchant-Id header does not narrow it', async () => {
      const withHeader = await list('limit=200', { 'merchant-id': merchantIds[0]! });
      expect(withHeader.status, withHeader.text).toBe(200);
      expect(withHeader.body.stats.totalTransactions).toBe(payments.length);
    });

    it('treats empty asset= and cursor= as absent, and answers the deprecated asset with a Deprecation header', async () => {
      const plain = await list('limit=3');
      const empty = await list('limit=3&asset=&cursor=');
      expect(empty.status, empty.text).toBe(200);
      expect(empty.body).toEqual(plain.body);
      expect(empty.headers.get('deprecation')).toBeNull();
      const withAsset = await list('asset=USDC');
      expect(withAsset.headers.get('deprecation')).toBe('true');
      expect(withAsset.body.stats).toEqual((await list('token_symbol=USDC')).body.stats);
    });
  });

  describe('errors', () => {
    it("reports another partner's merchant and an unknown merchant as 404 merchant_not_found", async () => {
      for (const merchantId of [otherMerchantId, 'mrch_unknown']) {
        const result = await list(`merchantId=${merchantId}`);
        expect([result.status, expectErrorBody(result).code]).toEqual([404, 'merchant_not_found']);
      }
    });

    it('refuses status=cancelled in 2026-02-18, saying that cancelled payments are listed as failed', async () => {
      const result = await list('status=cancelled');
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      expect(expectErrorBody(result).issues?.[0]?.message).toContain('status=failed includes it');
    });

    it('refuses the deprecated asset in the preview version', async () => {
      const result = await list('asset=USDC', PREVIEW);
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
    });

    it.each([
      ['limit=0'],
      ['limit=201'],
      ['sortBy=name'],
      ['status=paid'],
      ['referenceId=ab'],
      ['search=ab'],
      [`search=${'a'.repeat(129)}`],
      ['search=100%25'],
      ['network=base'],
      ['merchantId='],
      [`merchantId=${'m'.repeat(65)}`],
      ['merchant_id=mrch_x'],
      ['startTs=2026-02-01T00:00:00Z&endTs=2026-01-01T00:00:00Z'],
    ])('refuses %s with params_validation', async (query) => {
      const result = await list(query);
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
    });

    it("refuses a tampered cursor, one from another query and one from a merchant's list with invalid_params", async () => {
      const first = await list('limit=2');
      const cursor: string = first.body.nextCursor;
      const otherQuery = await list(`limit=2&sortBy=amount&cursor=${encodeURIComponent(cursor)}`);
      expect([otherQuery.status, expectErrorBody(otherQuery).code]).toEqual([400, 'invalid_params']);
      const tampered = await list(`limit=2&cursor=${encodeURIComponent(`x${cursor}`)}`);
      expect([tampered.status, expectErrorBody(tampered).code]).toEqual([400, 'invalid_params']);
      const merchantPage = await list(`limit=2&merchantId=${merchantIds[0]}`);
      const narrower = await list(`limit=2&cursor=${encodeURIComponent(merchantPage.body.nextCursor)}`);
      expect([narrower.status, expectErrorBody(narrower).code]).toEqual([400, 'invalid_params']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/payments',
  scope: 'payments',
  request: async () => ({ method: 'GET', path: '/v1/payments' }),
});

runCommonRouteTests({
  name: 'GET /v1/payments?merchantId=',
  scope: 'payments',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'GET',
    path: `/v1/payments?merchantId=${(await createMerchant(server, partner.apiKey)).id}`,
  }),
});
