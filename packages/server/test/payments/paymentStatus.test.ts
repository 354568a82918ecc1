import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../src/log.ts';
import { expireDuePayments, expireDuePaymentsEvery, expirePaymentTask } from '../../src/payments/expiry.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
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

describe('payment status, reading and cancelling', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  const clock = new ManualClock();

  const headers = () => ({ 'api-key': partner.apiKey, 'merchant-id': merchantId });
  const get = (path: string) => call(server, path, { headers: headers() });

  beforeAll(async () => {
    server = await startTestServer({
      context: { clock },
    });
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server.close());

  it('reports a new payment as pending on the merchant family and requires_action elsewhere', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    expect((await get(`/v1/merchant/payment/${paymentId}/status`)).body).toEqual({ status: 'pending', isFinal: false });
    const status = await get(`/v1/payments/${paymentId}/status`);
    expect(status.body).toEqual({ status: 'requires_action', isFinal: false, pollInMs: 2000, info: null });
  });

  it('returns the list item shape from GET /v1/payments/{id}, omitting objects without data', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId, {
      referenceId: 'shape-1',
      amount: { unit: 'iso4217/EUR', value: '1234' },
    });
    const item = (await get(`/v1/payments/${paymentId}`)).body;
    expect(Object.keys(item).sort()).toEqual([
      'createdAt',
      'fiatAmount',
      'isTerminal',
      'lastUpdatedAt',
      'merchant',
      'paymentId',
      'referenceId',
      'source',
      'status',
    ]);
    expect(item).toMatchObject({
      paymentId,
      referenceId: 'shape-1',
      source: 'api',
      status: 'requires_action',
      isTerminal: false,
      merchant: { id: merchantId, name: 'Corner Shop', iconUrl: null },
      fiatAmount: { unit: 'iso4217/EUR', value: '1234', display: { assetSymbol: '€', assetName: 'Euro', decimals: 2 } },
    });
  });

  it('reports unknown payments and other merchants’ payments as 404 payment_not_found', async () => {
    const other = await createMerchant(server, partner.apiKey);
    const { paymentId } = await createPayment(server, partner.apiKey, other.id);
    for (const path of [
      `/v1/payments/${paymentId}`,
      `/v1/payments/pay_missing/status`,
      `/v1/merchant/payment/${paymentId}/status`,
    ]) {
      const result = await get(path);
      expect([result.status, expectErrorBody(result).code]).toEqual([404, 'payment_not_found']);
    }
  });

  it('never reports a payment payable after expiresAt, even before the expiry sweep runs', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    clock.advance(16 * 60 * 1000);
    try {
      expect((await get(`/v1/merchant/payment/${paymentId}/status`)).body).toEqual({
        status: 'expired',
        isFinal: true,
      });
      expect((await get(`/v1/payments/${paymentId}/status`)).body).toEqual({
        status: 'expired',
        isFinal: true,
        info: null,
      });
      expect((await get(`/v1/payments/${paymentId}`)).body).toMatchObject({ status: 'expired', isTerminal: true });
      const cancel = await call(server, `/v1/payments/${paymentId}/cancel`, { method: 'POST', headers: headers() });
      expect([cancel.status, cancel.body.code]).toEqual([400, 'invalid_state']);
    } finally {
      clock.advance(-16 * 60 * 1000);
    }
  });

  it('the expiry sweep makes a payment past expiresAt expired, with its event, and wakes its long-polls', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const polling = get(`/v1/payments/${paymentId}/status?maxPollMs=10000`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Due by the service's clock, which never runs ahead of real time here, so no other test's payment is due early.
    await server.db
      .updateTable('payments')
      .set({ expires_at: new Date(clock.now().getTime() - 1000) })
      .where('id', '=', paymentId)
      .execute();
    const sweeps = expireDuePaymentsEvery(server.ctx, 100, silentLogger);
    try {
      expect((await polling).body.status).toBe('expired');
      const stored = await server.db
        .selectFrom('payments')
        .select('status')
        .where('id', '=', paymentId)
        .executeTakeFirstOrThrow();
      expect(stored.status).toBe('expired');
      const events = await server.db
        .selectFrom('webhook_events')
        .select('type')
        .where('partner_id', '=', partner.partnerId)
        .where('body', 'like', `%${paymentId}%`)
        .execute();
      expect(events.map((event) => event.type).sort()).toEqual(['payment.created', 'payment.expired']);
      // Expired once: a later pass finds nothing more to do for it (other test files' payments on this database
      // may well be due by now).
      expect(await expireDuePayments(server.ctx, undefined, paymentId)).toBe(0);
    } finally {
      await sweeps.stop();
    }
  });

  it('an expiry job an earlier version queued still expires its payment, once', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    await server.db
      .updateTable('payments')
      .set({ expires_at: new Date(clock.now().getTime() - 1000) })
      .where('id', '=', paymentId)
      .execute();
    await expirePaymentTask(server.ctx)({ paymentId }, {} as never);
    await expirePaymentTask(server.ctx)({ paymentId }, {} as never);
    expect((await get(`/v1/payments/${paymentId}/status`)).body.status).toBe('expired');
  });

  it('maxPollMs=0 answers at once and a change wakes a long-poll', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const immediate = Date.now();
    await get(`/v1/payments/${paymentId}/status?maxPollMs=0`);
    expect(Date.now() - immediate).toBeLessThan(1000);
    const polling = get(`/v1/payments/${paymentId}/status?maxPollMs=20000`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await call(server, `/v1/payments/${paymentId}/cancel`, { method: 'POST', headers: headers() });
    expect((await polling).body.status).toBe('cancelled');
  });

  it('refuses a negative maxPollMs', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const result = await get(`/v1/payments/${paymentId}/status?maxPollMs=-1`);
    expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
  });
});

describe('long-poll across processes', () => {
  let first: ServerProcess;
  let second: ServerProcess;
  let server: TestServer;

  beforeAll(async () => {
    [first, second] = await startTwoServerProcesses(inject('databaseUrl'));
    server = await startTestServer();
  });
  afterAll(async () => {
    await Promise.all([first.stop(), second.stop(), server.close()]);
  });

  it('a change made through process B wakes a waiter on process A within 200 ms', async () => {
    const partner = await newPartner(server.db);
    const merchant = await createMerchant(server, partner.apiKey);
    const headers = { 'api-key': partner.apiKey, 'merchant-id': merchant.id };
    const { paymentId } = await createPayment(first, partner.apiKey, merchant.id);
    const polling = call(first, `/v1/payments/${paymentId}/status?maxPollMs=20000`, { headers });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const changedAt = Date.now();
    const cancel = await call(second, `/v1/payments/${paymentId}/cancel`, { method: 'POST', headers });
    expect(cancel.status).toBe(200);
    const woken = await polling;
    const wakeUpMs = Date.now() - changedAt;
    process.stdout.write(`long-poll wake-up across processes: ${wakeUpMs} ms\n`);
    expect(woken.body.status).toBe('cancelled');
    expect(wakeUpMs).toBeLessThan(200);
  });

  it('caps a long-poll at 30 s', async () => {
    const partner = await newPartner(server.db);
    const merchant = await createMerchant(server, partner.apiKey);
    const { paymentId } = await createPayment(first, partner.apiKey, merchant.id);
    const started = Date.now();
    const result = await call(first, `/v1/payments/${paymentId}/status?maxPollMs=45000`, {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchant.id },
    });
    const heldMs = Date.now() - started;
    expect(result.body.status).toBe('requires_action');
    expect(heldMs).toBeGreaterThanOrEqual(29_900);
    expect(heldMs).toBeLessThan(40_000);
  }, 50_000);
});

const statusRoutes: Array<[string, (paymentId: string) => string, string]> = [
  ['GET /v1/merchant/payment/:id/status', (id) => `/v1/merchant/payment/${id}/status`, 'GET'],
  ['GET /v1/payments/:id/status', (id) => `/v1/payments/${id}/status`, 'GET'],
  ['GET /v1/payments/:id', (id) => `/v1/payments/${id}`, 'GET'],
];
for (const [name, path, method] of statusRoutes) {
  runCommonRouteTests({
    name,
    scope: 'payments',
    ownedResource: true,
    request: async (server, partner) => {
      const merchant = await createMerchant(server, partner.apiKey);
      const { paymentId } = await createPayment(server, partner.apiKey, merchant.id);
      return { method, path: path(paymentId), headers: { 'merchant-id': merchant.id } };
    },
  });
}

describe('long-polls held per payment', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { LONG_POLLS_PER_PAYMENT: '2' } });
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server.close());

  it('holds at most the configured long-polls of one payment; one more is answered at once, others still held', async () => {
    const headers = { 'api-key': partner.apiKey, 'merchant-id': merchantId };
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const other = await createPayment(server, partner.apiKey, merchantId);
    const poll = (id: string) => call(server, `/v1/payments/${id}/status?maxPollMs=20000`, { headers });
    let answered = 0;
    const held = [poll(paymentId), poll(paymentId)].map((polling) =>
      polling.then((result) => {
        answered += 1;
        return result;
      }),
    );
    while (server.ctx.statusWaiter.waitingCount() < 2) await new Promise((resolve) => setTimeout(resolve, 20));

    const extra = await poll(paymentId);
    expect([extra.status, extra.body.status, answered]).toEqual([200, 'requires_action', 0]);
    // Another payment's long-poll is held as usual.
    const otherPolling = poll(other.paymentId);
    while (server.ctx.statusWaiter.waitingCount() < 3) await new Promise((resolve) => setTimeout(resolve, 20));

    await call(server, `/v1/payments/${paymentId}/cancel`, { method: 'POST', headers });
    expect((await Promise.all(held)).map((result) => result.body.status)).toEqual(['cancelled', 'cancelled']);
    await call(server, `/v1/payments/${other.paymentId}/cancel`, { method: 'POST', headers });
    expect((await otherPolling).body.status).toBe('cancelled');
  });
});
