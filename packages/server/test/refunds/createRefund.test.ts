import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { payInUsdc } from '../settlement/support.ts';
import { refundEventTypes } from './support.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, expectErrorBody, type TestPartner, type TestServer } from '../support/testServer.ts';

const usd = (value: string) => ({ unit: 'iso4217/USD', value });

describe('refunds recorded by the merchant', () => {
  let testbed: GatewayTestbed;

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
  }, 180_000);
  afterAll(() => testbed?.close());

  const refund = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(testbed.server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': testbed.merchantId, ...headers },
      body,
    });

  it('marks a whole payment refunded, once: the paid token amount, final at once, with its events', async () => {
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'evm', 1234n);
    const first = await refund({ paymentId });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      paymentId,
      merchantId: testbed.merchantId,
      method: 'recorded',
      status: 'succeeded',
      amount: usd('1234'),
      tokenAmount: { value: '12340000' },
      txHash: null,
    });
    expect(first.body.id).toMatch(/^rfnd_[0-9A-Z]{26}$/);
    expect(first.body.tokenAmount.unit).toMatch(/^caip19\/eip155:/);
    expect(first.body.destination).toBeUndefined();
    expect(await refundEventTypes(testbed, first.body.id)).toEqual(['refund.created', 'refund.succeeded']);

    const again = await refund({ paymentId });
    expect([again.status, expectErrorBody(again).code]).toEqual([409, 'already_refunded']);
    const read = await call(testbed.server, `/v1/refunds/${first.body.id}`, {
      headers: { 'api-key': testbed.partner.apiKey },
    });
    expect([read.status, read.body]).toEqual([200, first.body]);
  });

  it('refunds in parts that never add up to more than was paid, the last part taking the token left', async () => {
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'evm', 1000n);
    const parts = [];
    for (const value of ['333', '333']) {
      const part = await refund({ paymentId, amount: usd(value) });
      expect(part.status, part.text).toBe(200);
      parts.push(part.body);
    }
    const tooMuch = await refund({ paymentId, amount: usd('335') });
    expect([tooMuch.status, expectErrorBody(tooMuch).code]).toEqual([400, 'refund_exceeds_payment']);
    expect(tooMuch.body.details).toEqual({ refundable: usd('334') });
    const rest = await refund({ paymentId, amount: null });
    expect([rest.status, rest.body.amount]).toEqual([200, usd('334')]);
    parts.push(rest.body);
    const tokens = parts.map((part) => BigInt(part.tokenAmount.value));
    expect(tokens).toEqual([3_330_000n, 3_330_000n, 3_340_000n]);
    expect(tokens.reduce((sum, value) => sum + value, 0n)).toBe(10_000_000n);
    expect((await refund({ paymentId, amount: usd('1') })).status).toBe(409);
  });

  it("shows a payment's refunds on its page, and the list's statistics count each succeeded refund once", async () => {
    const merchant = await createMerchant(testbed.server, testbed.partner.apiKey, {
      merchantName: 'Refund stats shop',
      merchantEmail: 'owner@refund-stats.com',
    });
    const headers = { 'merchant-id': merchant.id };
    const first = await payInUsdc(testbed, merchant.id, 'evm', 1000n);
    const second = await payInUsdc(testbed, merchant.id, 'evm', 2500n);
    await payInUsdc(testbed, merchant.id, 'evm', 700n);
    for (const value of ['100', '150'])
      expect((await refund({ paymentId: first, amount: usd(value) }, headers)).status).toBe(200);
    expect((await refund({ paymentId: second }, headers)).status).toBe(200);

    const page = await call(testbed.server, `/v1/payments/${first}`, {
      headers: { 'api-key': testbed.partner.apiKey, ...headers },
    });
    expect(page.status, page.text).toBe(200);
    expect(page.body.refundedAmount).toEqual(usd('250'));
    expect(page.body.refunds.map((item: { amount: unknown; status: string }) => [item.amount, item.status])).toEqual([
      [usd('100'), 'succeeded'],
      [usd('150'), 'succeeded'],
    ]);
    const list = async (query = '') =>
      (
        await call(testbed.server, `/v1/merchants/payments${query}`, {
          headers: { 'api-key': testbed.partner.apiKey, ...headers },
        })
      ).body.stats;
    expect(await list()).toMatchObject({
      totalRevenue: [{ amount: 42, currency: 'USD' }],
      totalRefunded: [{ amount: 27.5, currency: 'USD' }],
      totalTransactions: 3,
    });
    const partnerWide = await call(testbed.server, `/v1/payments?merchantId=${merchant.id}`, {
      headers: { 'api-key': testbed.partner.apiKey },
    });
    expect(partnerWide.body.stats.totalRefunded).toEqual([{ amount: 27.5, currency: 'USD' }]);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect((await list(`?startTs=${encodeURIComponent(future)}`)).totalRefunded).toEqual([]);

    // Each listed payment carries what its refunds returned and what is still on its way back; one sent on chain
    // stays pending until its transaction lands, and is not counted refunded before.
    const fourth = await payInUsdc(testbed, merchant.id, 'evm', 400n);
    const sent = await refund({ paymentId: fourth, amount: usd('120'), send: true }, headers);
    expect([sent.status, sent.body.status]).toEqual([200, 'pending']);
    const totals = (items: { paymentId: string; refundedAmount?: unknown; pendingRefundAmount?: unknown }[]) =>
      new Map(items.map((item) => [item.paymentId, [item.refundedAmount, item.pendingRefundAmount]]));
    const partnerList = await call(testbed.server, `/v1/payments?merchantId=${merchant.id}`, {
      headers: { 'api-key': testbed.partner.apiKey },
    });
    const merchantList = await call(testbed.server, '/v1/merchants/payments', {
      headers: { 'api-key': testbed.partner.apiKey, ...headers },
    });
    for (const listed of [partnerList, merchantList]) {
      const byPayment = totals(listed.body.data);
      expect(byPayment.get(first)).toEqual([usd('250'), usd('0')]);
      expect(byPayment.get(second)).toEqual([usd('2500'), usd('0')]);
      expect(byPayment.get(fourth)).toEqual([usd('0'), usd('120')]);
      expect(byPayment.size).toBe(4);
      expect([...byPayment.values()].filter(([refunded]) => refunded === undefined)).toEqual([[undefined, undefined]]);
    }
    const fourthPage = await call(testbed.server, `/v1/payments/${fourth}`, {
      headers: { 'api-key': testbed.partner.apiKey, ...headers },
    });
    expect([fourthPage.body.refundedAmount, fourthPage.body.pendingRefundAmount]).toEqual([usd('0'), usd('120')]);
  });

  it('lets only as many concurrent refunds through as the payment covers', async () => {
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'evm', 1000n);
    const answers = await Promise.all(Array.from({ length: 8 }, () => refund({ paymentId, amount: usd('300') })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 200, 200, 400, 400, 400, 400, 400]);
    const rows = await testbed.server.db
      .selectFrom('refunds')
      .select('fiat_value')
      .where('payment_id', '=', paymentId)
      .execute();
    expect(rows.reduce((sum, row) => sum + BigInt(row.fiat_value), 0n)).toBe(900n);
  });

  it('refuses what cannot be refunded, each with its code', async () => {
    const unpaid = await testbed.newPayment();
    const notSucceeded = await refund({ paymentId: unpaid.paymentId });
    expect([notSucceeded.status, expectErrorBody(notSucceeded).code]).toEqual([400, 'payment_not_succeeded']);

    const unknown = await refund({ paymentId: 'pay_01HZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect([unknown.status, expectErrorBody(unknown).code]).toEqual([404, 'not_found']);

    const otherMerchant = await createMerchant(testbed.server, testbed.partner.apiKey, {
      merchantName: 'Other shop',
      merchantEmail: 'owner@other-shop.com',
    });
    const paid = await payInUsdc(testbed, testbed.merchantId, 'evm', 500n);
    const wrongMerchant = await refund({ paymentId: paid }, { 'merchant-id': otherMerchant.id });
    expect([wrongMerchant.status, expectErrorBody(wrongMerchant).code]).toEqual([404, 'not_found']);

    const currency = await refund({ paymentId: paid, amount: { unit: 'iso4217/EUR', value: '100' } });
    expect([currency.status, expectErrorBody(currency).issues]).toEqual([
      400,
      [{ field: 'amount.unit', message: "must be iso4217/USD, the payment's currency" }],
    ]);
    for (const value of ['0', '-5', '1.5', 'ten', '99999999999999999999']) {
      const bad = await refund({ paymentId: paid, amount: usd(value) });
      expect([value, bad.status, expectErrorBody(bad).code]).toEqual([value, 400, 'params_validation']);
    }
    const badUnit = await refund({ paymentId: paid, amount: { unit: 'USD', value: '1' } });
    expect(expectErrorBody(badUnit).issues).toEqual([
      { field: 'amount.unit', message: 'must be iso4217/ followed by a currency code' },
    ]);
    const wrongType = await refund({ paymentId: paid, send: 'yes' });
    expect([wrongType.status, expectErrorBody(wrongType).code]).toEqual([400, 'params_validation']);
    const missing = await refund({});
    expect(expectErrorBody(missing).issues).toEqual([{ field: 'paymentId', message: 'is required' }]);
    const noMerchant = await call(testbed.server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': testbed.partner.apiKey },
      body: { paymentId: paid },
    });
    expect([noMerchant.status, expectErrorBody(noMerchant).code]).toEqual([401, 'missing_merchant_id']);
    expect((await refund({ paymentId: paid })).status).toBe(200);
  });

  it('replays the answer of a request repeated with its Idempotency-Key, and refuses the key for another', async () => {
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'evm', 800n);
    const key = { 'idempotency-key': randomUUID() };
    const first = await refund({ paymentId, amount: usd('100') }, key);
    const replay = await refund({ paymentId, amount: usd('100') }, key);
    expect([first.status, replay.status]).toEqual([200, 200]);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const other = await refund({ paymentId, amount: usd('200') }, key);
    expect([other.status, expectErrorBody(other).code]).toEqual([409, 'idempotency_conflict']);
    const rows = await testbed.server.db
      .selectFrom('refunds')
      .select('id')
      .where('payment_id', '=', paymentId)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it("keeps a refund from another partner's key, reading it as not found", async () => {
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'evm', 700n);
    const made = await refund({ paymentId });
    const other = await testbed.otherPartner('Snooping partner');
    const read = await call(testbed.server, `/v1/refunds/${made.body.id}`, {
      headers: { 'api-key': other.partner.apiKey },
    });
    expect([read.status, expectErrorBody(read).code]).toEqual([404, 'not_found']);
    const refundTheirs = await call(testbed.server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': other.partner.apiKey, 'merchant-id': testbed.merchantId },
      body: { paymentId },
    });
    expect([refundTheirs.status, expectErrorBody(refundTheirs).code]).toEqual([404, 'merchant_not_found']);
  });
});

/** A payment marked succeeded in the database, for the route's authentication matrix (no chain needed there). */
async function succeededPayment(server: TestServer, partner: TestPartner) {
  const merchantId = (await createMerchant(server, partner.apiKey)).id;
  const { paymentId } = await createPayment(server, partner.apiKey, merchantId, { amount: usd('100000') });
  await server.db
    .updateTable('payments')
    .set({ status: 'succeeded', token_value: '1000000000' })
    .where('id', '=', paymentId)
    .execute();
  return { merchantId, paymentId };
}

runCommonRouteTests({
  name: 'POST /v1/refunds',
  scope: 'payments',
  ownedResource: true,
  request: async (server, partner) => {
    const { merchantId, paymentId } = await succeededPayment(server, partner);
    return {
      method: 'POST',
      path: '/v1/refunds',
      headers: { 'merchant-id': merchantId },
      body: { paymentId, amount: usd('1') },
    };
  },
});

runCommonRouteTests({
  name: 'GET /v1/refunds/{id}',
  scope: 'payments',
  ownedResource: true,
  request: async (server, partner) => {
    const { merchantId, paymentId } = await succeededPayment(server, partner);
    const made = await call(server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      body: { paymentId },
    });
    expect(made.status, made.text).toBe(200);
    return { method: 'GET', path: `/v1/refunds/${made.body.id}` };
  },
});
