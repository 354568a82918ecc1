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
    payments.push(...randomPayments(80, 42, [merchantId]));
    await insertPayments(server.db, partner.partnerId, payments);
    // Other processes on this database may fold too; at least this file's inserts are folded here.
    expect(await foldPaymentStats(server.db)).toBeGreaterThanOrEqual(payments.length);
    await changeSomePayments(server.db, payments);
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
      search: sometimes(fc.constantFrom(`0x${'4'.padStart(40, '0')}`, 'order-3', 'pay_nothing_like_it')),
      source: sometimes(fc.constantFrom('api' as const, 'x402' as const)),
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

  it('treats empty asset= and cursor= as absent: the first page, without a Deprecation header', async () => {
    const plain = await list('limit=3');
    const empty = await list('limit=3&asset=&cursor=');
    expect(empty.status, empty.text).toBe(200);
    expect(empty.headers.get('deprecation')).toBeNull();
    expect(empty.body).toEqual(plain.body);
    const preview = await list('asset=', { 'pay-version': '2026-02-19.preview' });
    expect(preview.status, preview.text).toBe(200);
  });

  it('filters by status=cancelled in the preview version: only cancelled payments, still listed as failed, marked cancelled', async () => {
    const want = expected(
      payments,
      { statuses: ['cancelled'], sortBy: 'date', sortDir: 'desc', limit: 200 },
      new Date(),
    );
    expect(want.ids.length).toBeGreaterThan(0);
    const result = await list('status=cancelled&limit=200', { 'pay-version': '2026-02-19.preview' });
    expect(result.status, result.text).toBe(200);
    expect(result.body.data.map((item: { paymentId: string }) => item.paymentId)).toEqual(want.ids);
    expect(result.body.stats).toEqual(want.stats);
    expect(new Set(result.body.data.map((item: { status: string }) => item.status))).toEqual(new Set(['failed']));
    const failed = await list('status=failed&limit=200', { 'pay-version': '2026-02-19.preview' });
    const failedIds = failed.body.data.map((item: { paymentId: string }) => item.paymentId);
    expect(want.ids.every((id) => failedIds.includes(id))).toBe(true);
    // Among the failed, the cancelled ones say so, in every version.
    const reference = await list('status=failed&limit=200');
    const marked = reference.body.data
      .filter((item: { cancelled?: boolean }) => item.cancelled === true)
      .map((item: { paymentId: string }) => item.paymentId);
    expect(marked.sort()).toEqual([...want.ids].sort());
  });

  it('refuses status=cancelled in 2026-02-18 saying why, and names the accepted statuses for an unknown one', async () => {
    const cancelled = expectErrorBody(await list('status=cancelled'));
    expect(cancelled.code).toBe('params_validation');
    expect(cancelled.issues).toEqual([
      { field: 'status', message: expect.stringContaining('a cancelled payment is listed as failed') },
    ]);
    const unknown = expectErrorBody(await list('status=paid'));
    expect(unknown.issues?.[0]?.message).toBe(
      'must be one of: requires_action, processing, succeeded, failed, expired, cancelled',
    );
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
