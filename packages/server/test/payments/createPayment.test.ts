import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pinPartnerVersion } from '../../src/partners/partners.ts';
import { setFeeSchedule } from '../../src/settlement/feeSchedules.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant } from '../support/fixtures.ts';
import { ManualClock } from '../support/manualClock.ts';
import { type ServerProcess, startTwoServerProcesses } from '../support/serverProcess.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

const amount = { unit: 'iso4217/USD', value: '1000' };

describe('creating payments', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  const create = (body: Record<string, unknown>, path = '/v1/payments', headers: Record<string, string> = {}) =>
    call(server, path, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId, ...headers },
      body,
    });

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server.close());

  describe('happy path', () => {
    it('POST /v1/payments creates a payment waiting for the buyer, with a checkout link and a 15 minute expiry', async () => {
      const before = Math.floor(Date.now() / 1000);
      const result = await create({ amount, referenceId: 'order-1' });
      expect(result.status, result.text).toBe(201);
      const body = result.body;
      expect(body.paymentId).toMatch(/^pay_[0-9A-Z]{26}$/);
      expect(body.gatewayUrl).toBe(`${server.url}/${body.paymentId}`);
      expect(body).toMatchObject({ status: 'requires_action', isFinal: false });
      expect(body.pollInMs).toBeGreaterThan(0);
      expect(body.expiresAt).toBeGreaterThanOrEqual(before + 900);
      expect(body.expiresAt).toBeLessThanOrEqual(before + 901);
      const row = await server.db
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', body.paymentId)
        .executeTakeFirstOrThrow();
      expect([row.fiat_currency, row.fiat_value, row.reference_id, row.partner_id]).toEqual([
        'USD',
        '1000',
        'order-1',
        partner.partnerId,
      ]);
    });

    it('POST /v1/merchant/payment names the unpaid state pending and keeps redirects only when both are HTTPS', async () => {
      const both = await create(
        {
          amount,
          referenceId: 'checkout-1',
          checkout: { successUrl: 'https://shop.example/ok', errorUrl: 'https://shop.example/ko' },
        },
        '/v1/merchant/payment',
      );
      expect(both.status).toBe(201);
      expect(both.body.status).toBe('pending');
      const one = await create(
        {
          amount,
          referenceId: 'checkout-2',
          checkout: { successUrl: 'https://shop.example/ok', errorUrl: 'http://shop.example/ko' },
        },
        '/v1/merchant/payment',
      );
      const rows = await server.db
        .selectFrom('payments')
        .select(['id', 'success_url', 'error_url'])
        .where('id', 'in', [both.body.paymentId, one.body.paymentId])
        .execute();
      const byId = Object.fromEntries(rows.map((row) => [row.id, [row.success_url, row.error_url]]));
      expect(byId[both.body.paymentId]).toEqual(['https://shop.example/ok', 'https://shop.example/ko']);
      expect(byId[one.body.paymentId]).toEqual([null, null]);
    });

    it('honours currencies without minor units and a custom expiry', async () => {
      const expiresAt = Math.floor(Date.now() / 1000) + 3600;
      const result = await create({ amount: { unit: 'iso4217/JPY', value: '1500' }, referenceId: 'yen', expiresAt });
      expect(result.status).toBe(201);
      expect(result.body.expiresAt).toBe(expiresAt);
    });

    it('returns the existing payment for the same referenceId and amount, with 200', async () => {
      const first = await create({ amount, referenceId: 'same-ref' });
      const again = await create({ amount, referenceId: 'same-ref' });
      expect([first.status, again.status]).toEqual([201, 200]);
      expect(again.body.paymentId).toBe(first.body.paymentId);
    });

    it('replays an Idempotency-Key', async () => {
      const key = randomUUID();
      const first = await create({ amount, referenceId: 'keyed' }, '/v1/payments', { 'idempotency-key': key });
      const again = await create({ amount, referenceId: 'keyed' }, '/v1/payments', { 'idempotency-key': key });
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });

    it('replays an Idempotency-Key even once its expiresAt is too near to be asked for again', async () => {
      const clock = new ManualClock();
      const timed = await startTestServer({ context: { clock } });
      try {
        const request = {
          method: 'POST',
          headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId, 'idempotency-key': randomUUID() },
          body: { amount, referenceId: 'keyed-near', expiresAt: Math.floor(clock.now().getTime() / 1000) + 90 },
        };
        const first = await call(timed, '/v1/payments', request);
        expect(first.status, first.text).toBe(201);
        // 60 s later the same body would be refused as new (expiresAt under 60 s away); its replay is not new.
        clock.advance(60_000);
        const again = await call(timed, '/v1/payments', request);
        expect([again.status, again.text]).toEqual([201, first.text]);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
      } finally {
        await timed.close();
      }
    });

    it('100 concurrent creates with one referenceId make one payment', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, () => create({ amount, referenceId: 'hundred' })));
      expect(results.filter((result) => result.status === 201)).toHaveLength(1);
      expect(results.filter((result) => result.status === 200)).toHaveLength(99);
      expect(new Set(results.map((result) => result.body.paymentId)).size).toBe(1);
    });

    it('records a payment.created event in the same transaction', async () => {
      const { body } = await create({ amount, referenceId: 'evented' });
      const events = await server.db
        .selectFrom('webhook_events')
        .selectAll()
        .where('partner_id', '=', partner.partnerId)
        .execute();
      const created = events.find(
        (event) => event.type === 'payment.created' && JSON.stringify(event).includes(body.paymentId),
      );
      expect(created).toBeDefined();
    });
  });

  describe('checkout redirects and expiresAt: null', () => {
    const preview = { 'pay-version': '2026-02-19.preview' };
    const redirectsOf = async (paymentId: string) =>
      server.db
        .selectFrom('payments')
        .select(['success_url', 'error_url', 'expires_at'])
        .where('id', '=', paymentId)
        .executeTakeFirstOrThrow();

    it('POST /v1/payments stores checkout {successUrl, errorUrl} from 2026-02-19.preview', async () => {
      const checkout = { successUrl: 'https://shop.example/thanks?order=7', errorUrl: 'https://shop.example/sorry' };
      const result = await create({ amount, referenceId: 'preview-checkout', checkout }, '/v1/payments', preview);
      expect(result.status, result.text).toBe(201);
      expect(await redirectsOf(result.body.paymentId)).toMatchObject({
        success_url: checkout.successUrl,
        error_url: checkout.errorUrl,
      });
    });

    it('POST /v1/payments ignores checkout in 2026-02-18, whatever its URLs', async () => {
      const checkout = { successUrl: 'http://shop.example/thanks', errorUrl: 'https://shop.example/sorry' };
      const result = await create({ amount, referenceId: 'reference-checkout', checkout });
      expect(result.status, result.text).toBe(201);
      expect(await redirectsOf(result.body.paymentId)).toMatchObject({ success_url: null, error_url: null });
    });

    it.each([
      [{ successUrl: 'http://shop.example/ok', errorUrl: 'https://shop.example/ko' }, ['checkout.successUrl']],
      [{ successUrl: 'https://shop.example/ok', errorUrl: 'ftp://shop.example/ko' }, ['checkout.errorUrl']],
      [{ successUrl: 'https://shop.example/ok' }, ['checkout.errorUrl']],
      [{ successUrl: 'shop.example/ok', errorUrl: '' }, ['checkout.successUrl', 'checkout.errorUrl']],
      [{}, ['checkout.successUrl', 'checkout.errorUrl']],
    ])('POST /v1/payments in 2026-02-19.preview refuses checkout %j naming %j', async (checkout, fields) => {
      const result = await create({ amount, referenceId: 'refused-checkout', checkout }, '/v1/payments', preview);
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      expect(expectErrorBody(result).issues?.map((issue) => issue.field)).toEqual(fields);
      const stored = await server.db
        .selectFrom('payments')
        .select('id')
        .where('merchant_id', '=', merchantId)
        .where('reference_id', '=', 'refused-checkout')
        .execute();
      expect(stored).toEqual([]);
    });

    it('takes checkout: null as not given on both paths and versions, as the preview schema allows it', async () => {
      for (const path of ['/v1/payments', '/v1/merchant/payment']) {
        for (const version of [{}, preview]) {
          const referenceId = `null-checkout-${path}-${Object.keys(version).length}`;
          const result = await create({ amount, referenceId, checkout: null }, path, version);
          expect(result.status, result.text).toBe(201);
          expect(await redirectsOf(result.body.paymentId)).toMatchObject({ success_url: null, error_url: null });
        }
      }
    });

    it('takes expiresAt: null as not given on both paths: the default 15 minutes', async () => {
      for (const path of ['/v1/payments', '/v1/merchant/payment']) {
        const before = Math.floor(Date.now() / 1000);
        const result = await create({ amount, referenceId: `null-expiry-${path}`, expiresAt: null }, path);
        expect(result.status, result.text).toBe(201);
        expect(result.body.expiresAt).toBeGreaterThanOrEqual(before + 900);
        expect(result.body.expiresAt).toBeLessThanOrEqual(before + 901);
      }
    });

    it('replays an Idempotency-Key whether expiresAt was null or absent', async () => {
      const key = randomUUID();
      const first = await create({ amount, referenceId: 'keyed-null' }, '/v1/payments', { 'idempotency-key': key });
      const again = await create({ amount, referenceId: 'keyed-null', expiresAt: null }, '/v1/payments', {
        'idempotency-key': key,
      });
      expect([first.status, again.status]).toEqual([201, 201]);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });
  });

  describe('errors', () => {
    it('refuses another amount for an existing referenceId with 409', async () => {
      await create({ amount, referenceId: 'conflict' });
      const result = await create({ amount: { unit: 'iso4217/USD', value: '2000' }, referenceId: 'conflict' });
      expect([result.status, expectErrorBody(result).code]).toEqual([409, 'idempotency_conflict']);
    });

    it.each([
      [{ amount: { unit: 'USD', value: '100' }, referenceId: 'x' }, 'amount.unit'],
      [{ amount: { unit: 'iso4217/ABC', value: '100' }, referenceId: 'x' }, 'amount.unit'],
      [{ amount: { unit: 'iso4217/usd', value: '100' }, referenceId: 'x' }, 'amount.unit'],
      [{ amount: { unit: 'iso4217/USD', value: '0' }, referenceId: 'x' }, 'amount.value'],
      [{ amount: { unit: 'iso4217/USD', value: '-5' }, referenceId: 'x' }, 'amount.value'],
      [{ amount: { unit: 'iso4217/USD', value: '10.50' }, referenceId: 'x' }, 'amount.value'],
      [{ amount: { unit: 'iso4217/USD', value: '1e3' }, referenceId: 'x' }, 'amount.value'],
      [{ amount: { unit: 'iso4217/USD', value: 1000 }, referenceId: 'x' }, 'amount.value'],
      [{ amount: { unit: 'iso4217/USD', value: '1'.repeat(19) }, referenceId: 'x' }, 'amount.value'],
      [{ amount, referenceId: '' }, 'referenceId'],
      [{ amount, referenceId: 'tab\there' }, 'referenceId'],
      [{ amount }, 'referenceId'],
      [{ referenceId: 'x' }, 'amount'],
      [{ amount, referenceId: 'x', expiresAt: Math.floor(Date.now() / 1000) + 10 }, 'expiresAt'],
      [{ amount, referenceId: 'x', expiresAt: Math.floor(Date.now() / 1000) + 25 * 3600 }, 'expiresAt'],
    ])('refuses %j with params_validation on %s', async (body, field) => {
      const result = await create(body);
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      expect(expectErrorBody(result).issues?.map((issue) => issue.field)).toContain(field);
    });

    it('needs Merchant-Id (401), an existing merchant of this partner (404) that is active (403)', async () => {
      const missing = await call(server, '/v1/payments', {
        method: 'POST',
        headers: { 'api-key': partner.apiKey },
        body: {},
      });
      expect([missing.status, expectErrorBody(missing).code]).toEqual([401, 'missing_merchant_id']);
      const unknown = await create({ amount, referenceId: 'x' }, '/v1/payments', { 'merchant-id': 'mrch_unknown' });
      expect([unknown.status, expectErrorBody(unknown).code]).toEqual([404, 'merchant_not_found']);
      const other = await newPartner(server.db, 'Other');
      const theirs = await createMerchant(server, other.apiKey);
      const foreign = await create({ amount, referenceId: 'x' }, '/v1/payments', { 'merchant-id': theirs.id });
      expect([foreign.status, expectErrorBody(foreign).code]).toEqual([404, 'merchant_not_found']);
      const suspended = await createMerchant(server, partner.apiKey);
      await server.db.updateTable('merchants').set({ status: 'suspended' }).where('id', '=', suspended.id).execute();
      const forbidden = await create({ amount, referenceId: 'x' }, '/v1/payments', { 'merchant-id': suspended.id });
      expect([forbidden.status, expectErrorBody(forbidden).code]).toEqual([403, 'forbidden']);
    });
  });
});

describe('creating payments in one statement', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  /** A fresh partner and merchant, and a create for them; the first create of a partner reads its fees. */
  async function newMerchantCreating() {
    const partner = await newPartner(server.db);
    const merchant = await createMerchant(server, partner.apiKey);
    const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      call(server, '/v1/payments', {
        method: 'POST',
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchant.id, ...headers },
        body,
      });
    return { partner, merchant, create };
  }

  /** The references of the partner's payments, in order. */
  const referencesOf = async (partnerId: string) =>
    (
      await server.db
        .selectFrom('payments')
        .select('reference_id')
        .where('partner_id', '=', partnerId)
        .orderBy('reference_id')
        .execute()
    ).map((row) => row.reference_id);

  const createdEvent = async (paymentId: string) => {
    const event = await server.db
      .selectFrom('webhook_events')
      .select(['body', 'created_at'])
      .where('type', '=', 'payment.created')
      .where(sql<boolean>`body::jsonb -> 'data' -> 'object' ->> 'paymentId' = ${paymentId}`)
      .executeTakeFirstOrThrow();
    return JSON.parse(event.body);
  };

  it('writes the same payment and event as a create in a transaction, with the merchant as it is now', async () => {
    const { partner, merchant, create } = await newMerchantCreating();
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    const first = await create({ amount, referenceId: 'read-fees', expiresAt });
    const second = await create({ amount, referenceId: 'known-fees', expiresAt });
    expect([first.status, second.status]).toEqual([201, 201]);
    const ids = [first.body.paymentId as string, second.body.paymentId as string];
    const rows = await server.db
      .selectFrom('payments')
      .selectAll()
      .where('id', 'in', ids)
      .orderBy('reference_id')
      .execute();
    const comparable = ({
      id: _id,
      reference_id: _ref,
      created_at: _c,
      updated_at: _u,
      ...rest
    }: (typeof rows)[number]) => rest;
    expect(comparable(rows[0] as (typeof rows)[number])).toEqual(comparable(rows[1] as (typeof rows)[number]));
    const [firstEvent, secondEvent] = await Promise.all(ids.map(createdEvent));
    const withoutIdsAndTimes = (event: unknown) =>
      JSON.parse(
        JSON.stringify(event).replace(/"(id|paymentId|referenceId|createdAt|lastUpdatedAt)":"[^"]*"/g, '"$1":""'),
      );
    expect(withoutIdsAndTimes(secondEvent)).toEqual(withoutIdsAndTimes(firstEvent));
    expect(secondEvent.data.object.paymentId).toBe(ids[1]);

    const renamed = await call(server, `/v1/merchants/${merchant.id}`, {
      method: 'PATCH',
      headers: { 'api-key': partner.apiKey },
      body: { merchantName: 'Renamed shop' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const third = await create({ amount, referenceId: 'renamed' });
    expect((await createdEvent(third.body.paymentId)).data.object.merchant.name).toBe('Renamed shop');
  });

  it('applies fees another process set since this one last read them', async () => {
    const { partner, create } = await newMerchantCreating();
    expect((await create({ amount: { unit: 'iso4217/USD', value: '100' }, referenceId: 'before' })).status).toBe(201);
    await setFeeSchedule(server.db, partner.partnerId, { percentage: '0', fixed: [{ currency: 'USD', amount: 500n }] });
    const under = await create({ amount: { unit: 'iso4217/USD', value: '100' }, referenceId: 'under' });
    expect([under.status, expectErrorBody(under).code]).toEqual([400, 'params_validation']);
    expect(await referencesOf(partner.partnerId)).toEqual(['before']);
    expect((await create({ amount: { unit: 'iso4217/USD', value: '501' }, referenceId: 'covers' })).status).toBe(201);
  });

  it('stamps the event with the version the partner is pinned to now, not when its key was last verified', async () => {
    const { partner, create } = await newMerchantCreating();
    const before = await create({ amount, referenceId: 'reference-version' });
    expect((await createdEvent(before.body.paymentId)).apiVersion).toBe('2026-02-18');
    await pinPartnerVersion(server.db, partner.partnerId, '2026-02-19.preview');
    const after = await create({ amount, referenceId: 'preview-version' });
    expect(after.status, after.text).toBe(201);
    expect((await createdEvent(after.body.paymentId)).apiVersion).toBe('2026-02-19.preview');
  });

  it('refuses an Idempotency-Key used again for another referenceId, writing nothing', async () => {
    const { partner, create } = await newMerchantCreating();
    const key = { 'idempotency-key': randomUUID() };
    expect((await create({ amount, referenceId: 'warm-up' })).status).toBe(201);
    const first = await create({ amount, referenceId: 'keyed-first' }, key);
    const reused = await create({ amount, referenceId: 'keyed-other' }, key);
    expect([first.status, reused.status, expectErrorBody(reused).code]).toEqual([201, 409, 'idempotency_conflict']);
    expect(await referencesOf(partner.partnerId)).toEqual(['keyed-first', 'warm-up']);
    const events = await server.db
      .selectFrom('webhook_events')
      .select('id')
      .where('partner_id', '=', partner.partnerId)
      .execute();
    expect(events).toHaveLength(2);
  });

  it('30 concurrent creates with one Idempotency-Key make one payment and give one answer', async () => {
    const { partner, create } = await newMerchantCreating();
    expect((await create({ amount, referenceId: 'warm-up' })).status).toBe(201);
    const key = { 'idempotency-key': randomUUID() };
    const results = await Promise.all(Array.from({ length: 30 }, () => create({ amount, referenceId: 'once' }, key)));
    expect(new Set(results.map((result) => `${result.status} ${result.text}`)).size).toBe(1);
    expect(results.filter((result) => result.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(await referencesOf(partner.partnerId)).toEqual(['once', 'warm-up']);
  });
});

describe('creating payments across two processes', () => {
  let processes: ServerProcess[];
  let server: TestServer;

  beforeAll(async () => {
    processes = await startTwoServerProcesses(inject('databaseUrl'));
    server = await startTestServer();
  });
  afterAll(async () => {
    await Promise.all([...processes.map((process) => process.stop()), server.close()]);
  });

  it('100 concurrent creates with one referenceId over both processes make one payment', async () => {
    const partner = await newPartner(server.db);
    const merchant = await createMerchant(server, partner.apiKey);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        call(processes[index % 2]!, '/v1/payments', {
          method: 'POST',
          headers: { 'api-key': partner.apiKey, 'merchant-id': merchant.id },
          body: { amount, referenceId: 'across' },
        }),
      ),
    );
    expect(results.filter((result) => result.status === 201)).toHaveLength(1);
    expect(results.filter((result) => result.status === 200)).toHaveLength(99);
    expect(new Set(results.map((result) => result.body.paymentId)).size).toBe(1);
    const rows = await server.db.selectFrom('payments').select('id').where('merchant_id', '=', merchant.id).execute();
    expect(rows).toHaveLength(1);
  });
});

for (const path of ['/v1/payments', '/v1/merchant/payment']) {
  runCommonRouteTests({
    name: `POST ${path}`,
    scope: 'payments',
    ownedResource: true,
    request: async (server, partner) => ({
      method: 'POST',
      path,
      headers: { 'merchant-id': (await createMerchant(server, partner.apiKey)).id },
      get body() {
        return { amount, referenceId: randomUUID() };
      },
    }),
  });
}
