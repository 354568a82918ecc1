import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { BASE_ACCOUNT, BASE_USDC, createMerchant, createPayment, transitionsOf } from '../support/fixtures.ts';
import {
  type CallResult,
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

interface PairedDevice {
  deviceId: string;
  deviceKey: string;
}

function expectError(result: CallResult, status: number, code: string): void {
  expect([result.status, expectErrorBody(result).code], result.text).toEqual([status, code]);
}

describe('/v1/point-of-sale/charges: a paired device charges, follows, lists and cancels its own payments', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let device: PairedDevice;
  const transition = transitionsOf(() => server);

  async function pairDevice(partnerKey: string, forMerchant: string): Promise<PairedDevice> {
    const paired = await call(server, '/v1/point-of-sale/devices', {
      method: 'POST',
      headers: { 'api-key': partnerKey },
      body: { merchantId: forMerchant, name: 'Till', tipPercents: [10, 15, 20] },
    });
    const pairingToken = new URL(paired.body.pairingUrl).hash.replace('#pair=', '');
    const claimed = await call(server, '/v1/point-of-sale/pairing', { method: 'POST', body: { pairingToken } });
    return { deviceId: paired.body.device.deviceId, deviceKey: claimed.body.deviceKey };
  }

  const asDevice = (key: string, path: string, options: { method?: string; body?: unknown } = {}) =>
    call(server, path, { ...options, headers: { 'device-key': key } });
  const charge = (key: string, body: Record<string, unknown>) =>
    asDevice(key, '/v1/point-of-sale/charges', {
      method: 'POST',
      body: { chargeId: randomUUID().replaceAll('-', ''), ...body },
    });

  async function pay(paymentId: string): Promise<void> {
    await changePaymentStatus(transition, paymentId, 'processing', {
      network: 'eip155:8453',
      token_asset: BASE_USDC,
      token_symbol: 'USDC',
      token_value: '14190000',
      tx_hash: `0x${randomBytes(32).toString('hex')}`,
      buyer_account: BASE_ACCOUNT,
    });
    await changePaymentStatus(transition, paymentId, 'succeeded');
  }

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
    device = await pairDevice(partner.apiKey, merchantId);
  });
  afterAll(() => server?.close());

  describe('happy path', () => {
    it('charges 12.34 USD with a 15% tip: 1.85 of tip, 14.19 asked, a point_of_sale payment of the merchant', async () => {
      const created = await charge(device.deviceKey, { amount: '1234', tipPercent: 15, note: ' Table 4 ' });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toEqual({
        paymentId: expect.stringMatching(/^pay_/),
        status: 'requires_action',
        isFinal: false,
        amount: { unit: 'iso4217/USD', value: '1419' },
        baseAmount: { unit: 'iso4217/USD', value: '1234' },
        tip: { unit: 'iso4217/USD', value: '185' },
        note: 'Table 4',
        paymentUrl: `${server.url}/${created.body.paymentId}`,
        receiptUrl: `${server.url}/pos/receipts/${created.body.paymentId}`,
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
      });
      const asMerchant = await call(server, `/v1/payments/${created.body.paymentId}`, {
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      });
      expect(asMerchant.body).toMatchObject({
        source: 'point_of_sale',
        fiatAmount: { unit: 'iso4217/USD', value: '1419' },
      });
    });

    it('answers a retry of the same chargeId with the same payment', async () => {
      const body = { chargeId: 'retry-0001', amount: '500' };
      const first = await charge(device.deviceKey, body);
      const retry = await charge(device.deviceKey, body);
      expect([first.status, retry.status]).toEqual([201, 200]);
      expect(retry.body.paymentId).toBe(first.body.paymentId);
      expectError(await charge(device.deviceKey, { ...body, amount: '600' }), 409, 'idempotency_conflict');
      // The same total split another way is another charge too.
      const split = { chargeId: 'retry-0002', amount: '1000', tipPercent: 10 };
      expect((await charge(device.deviceKey, split)).status).toBe(201);
      expectError(
        await charge(device.deviceKey, { chargeId: 'retry-0002', amount: '1100' }),
        409,
        'idempotency_conflict',
      );
    });

    it('stops a device revoked by another process at once, whatever this process remembers of its key', async () => {
      const other = await pairDevice(partner.apiKey, merchantId);
      expect((await charge(other.deviceKey, { amount: '500' })).status).toBe(201);
      // As another process revokes it: this one's credential cache still holds the key.
      await server.db
        .updateTable('point_of_sale_devices')
        .set({ revoked_at: new Date() })
        .where('id', '=', other.deviceId)
        .execute();
      expectError(await charge(other.deviceKey, { amount: '500' }), 401, 'invalid_device_key');
      const today = new Date(Date.now() - 3_600_000).toISOString();
      expectError(
        await asDevice(other.deviceKey, `/v1/point-of-sale/charges?from=${encodeURIComponent(today)}`),
        401,
        'invalid_device_key',
      );
    });

    it('follows a charge: the long-poll answers when it is paid, at once when it changed before', async () => {
      const created = await charge(device.deviceKey, { amount: '1000' });
      const path = `/v1/point-of-sale/charges/${created.body.paymentId}`;
      const follow = async () => {
        const seen = ['requires_action'];
        for (;;) {
          const answer = await asDevice(device.deviceKey, `${path}?maxPollMs=20000&since=${seen.at(-1)}`);
          if (answer.body.status !== seen.at(-1)) seen.push(answer.body.status);
          if (answer.body.isFinal) return { seen, last: answer.body };
        }
      };
      const followed = follow();
      await pay(created.body.paymentId);
      const { seen, last } = await followed;
      expect(seen.at(-1)).toBe('succeeded');
      expect(last).toMatchObject({
        isFinal: true,
        transaction: { networkId: 'eip155:8453', hash: expect.stringMatching(/^0x/) },
      });
      const late = await asDevice(device.deviceKey, `${path}?maxPollMs=20000&since=requires_action`);
      expect(late.body.status).toBe('succeeded');
    });

    it("lists the day's charges, newest first, with what succeeded and what is open", async () => {
      const fresh = await pairDevice(partner.apiKey, merchantId);
      const paid = await charge(fresh.deviceKey, { amount: '1234', tipPercent: 10 });
      await pay(paid.body.paymentId);
      const open = await charge(fresh.deviceKey, { amount: '200' });
      const cancelled = await charge(fresh.deviceKey, { amount: '300' });
      await asDevice(fresh.deviceKey, `/v1/point-of-sale/charges/${cancelled.body.paymentId}/cancel`, {
        method: 'POST',
      });
      const from = new Date(Date.now() - 3_600_000).toISOString();
      const listed = await asDevice(fresh.deviceKey, `/v1/point-of-sale/charges?from=${encodeURIComponent(from)}`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data.map((c: { paymentId: string; status: string }) => [c.paymentId, c.status])).toEqual([
        [cancelled.body.paymentId, 'cancelled'],
        [open.body.paymentId, 'requires_action'],
        [paid.body.paymentId, 'succeeded'],
      ]);
      expect(listed.body.totals).toEqual({
        unit: 'iso4217/USD',
        succeededCount: 1,
        succeededAmount: '1357',
        succeededTips: '123',
        openCount: 1,
      });
    });

    it('cancels a pending charge; cancelling it again answers it unchanged', async () => {
      const created = await charge(device.deviceKey, { amount: '700' });
      const path = `/v1/point-of-sale/charges/${created.body.paymentId}/cancel`;
      const cancelled = await asDevice(device.deviceKey, path, { method: 'POST' });
      expect(cancelled.body).toMatchObject({ status: 'cancelled', isFinal: true });
      expect((await asDevice(device.deviceKey, path, { method: 'POST' })).body).toEqual(cancelled.body);
    });
  });

  describe('errors', () => {
    it('refuses a tip the device does not offer, a bad amount, a bad chargeId and a long note', async () => {
      for (const body of [
        { amount: '1000', tipPercent: 12 },
        { amount: '0' },
        { amount: '12.34' },
        { amount: '1000', chargeId: 'x' },
        { amount: '1000', note: 'n'.repeat(141) },
      ]) {
        const refused = await charge(device.deviceKey, body);
        expect(refused.status, JSON.stringify(body)).toBe(400);
      }
    });

    it('refuses to cancel a paid charge', async () => {
      const created = await charge(device.deviceKey, { amount: '800' });
      await pay(created.body.paymentId);
      const refused = await asDevice(device.deviceKey, `/v1/point-of-sale/charges/${created.body.paymentId}/cancel`, {
        method: 'POST',
      });
      expectError(refused, 400, 'invalid_state');
    });

    it('has a receipt page only for a payment charged on a device', async () => {
      const created = await charge(device.deviceKey, { amount: '1234', tipPercent: 10, note: 'Kept private' });
      const receipt = await call(server, `/pos/receipts/${created.body.paymentId}`);
      expect(receipt.status).toBe(200);
      expect(receipt.headers.get('content-type')).toMatch(/^text\/html/);
      expect(receipt.text).toContain('Not paid yet');
      expect(receipt.text).toContain('13.57 USD');
      expect(receipt.text).not.toContain('Kept private');
      const apiPayment = await createPayment(server, partner.apiKey, merchantId);
      expect((await call(server, `/pos/receipts/${apiPayment.paymentId}`)).status).toBe(404);
      expect((await call(server, '/pos/receipts/pay_missing')).status).toBe(404);
    });

    it('refuses a list reaching back more than 48 hours', async () => {
      const from = new Date(Date.now() - 49 * 3_600_000).toISOString();
      expectError(
        await asDevice(device.deviceKey, `/v1/point-of-sale/charges?from=${encodeURIComponent(from)}`),
        400,
        'params_validation',
      );
    });

    it('refuses to charge for a suspended merchant', async () => {
      const shop = await createMerchant(server, partner.apiKey, {
        merchantName: 'Closed',
        merchantEmail: 'c@shop.com',
      });
      const till = await pairDevice(partner.apiKey, shop.id);
      await server.db.updateTable('merchants').set({ status: 'suspended' }).where('id', '=', shop.id).execute();
      expectError(await charge(till.deviceKey, { amount: '1000' }), 403, 'forbidden');
    });
  });

  describe('security', () => {
    const today = () =>
      `/v1/point-of-sale/charges?from=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`;

    it('refuses a missing, wrong or revoked device key, and any other credential', async () => {
      expectError(await call(server, today()), 401, 'missing_device_key');
      expectError(await asDevice('pos_not-a-key', today()), 401, 'invalid_device_key');
      expectError(await call(server, today(), { headers: { 'api-key': partner.apiKey } }), 401, 'missing_device_key');
      expectError(
        await call(server, today(), { headers: { 'api-key': partner.apiKey, 'device-key': device.deviceKey } }),
        400,
        'conflicting_auth_headers',
      );
      const revoked = await pairDevice(partner.apiKey, merchantId);
      const kept = await charge(revoked.deviceKey, { amount: '900' });
      await call(server, `/v1/point-of-sale/devices/${revoked.deviceId}`, {
        method: 'DELETE',
        headers: { 'api-key': partner.apiKey },
      });
      expectError(await charge(revoked.deviceKey, { amount: '900' }), 401, 'invalid_device_key');
      expectError(
        await asDevice(revoked.deviceKey, `/v1/point-of-sale/charges/${kept.body.paymentId}`),
        401,
        'invalid_device_key',
      );
    });

    it('every device route asks for a device key, and takes no API key, session or wallet app instead', async () => {
      const { paymentId } = (await charge(device.deviceKey, { amount: '1000' })).body;
      const routes: [string, string, unknown?][] = [
        ['GET', '/v1/point-of-sale/device'],
        ['POST', '/v1/point-of-sale/charges', { chargeId: 'sec-00001', amount: '1000' }],
        ['GET', today()],
        ['GET', `/v1/point-of-sale/charges/${paymentId}`],
        ['POST', `/v1/point-of-sale/charges/${paymentId}/cancel`],
      ];
      for (const [method, path, body] of routes) {
        expectError(await call(server, path, { method, body }), 401, 'missing_device_key');
        expectError(
          await call(server, path, { method, body, headers: { 'api-key': partner.apiKey } }),
          401,
          'missing_device_key',
        );
        expectError(
          await call(server, path, { method, body, headers: { 'device-key': 'pos_made-up' } }),
          401,
          'invalid_device_key',
        );
      }
    });

    it("cannot read, follow or cancel another device's or merchant's payments", async () => {
      const otherPartner = await newPartner(server.db, 'Other partner');
      const otherMerchant = await createMerchant(server, otherPartner.apiKey);
      const otherDevice = await pairDevice(otherPartner.apiKey, otherMerchant.id);
      const theirs = await charge(otherDevice.deviceKey, { amount: '1000' });
      const sameShopDevice = await pairDevice(partner.apiKey, merchantId);
      const colleague = await charge(sameShopDevice.deviceKey, { amount: '1000' });
      const apiPayment = await createPayment(server, partner.apiKey, merchantId);
      for (const paymentId of [theirs.body.paymentId, colleague.body.paymentId, apiPayment.paymentId]) {
        expectError(
          await asDevice(device.deviceKey, `/v1/point-of-sale/charges/${paymentId}`),
          404,
          'payment_not_found',
        );
        expectError(
          await asDevice(device.deviceKey, `/v1/point-of-sale/charges/${paymentId}/cancel`, { method: 'POST' }),
          404,
          'payment_not_found',
        );
      }
      const listed = await asDevice(device.deviceKey, today());
      const ids = listed.body.data.map((c: { paymentId: string }) => c.paymentId);
      expect(ids).not.toContain(theirs.body.paymentId);
      expect(ids).not.toContain(colleague.body.paymentId);
    });

    it('is refused by the merchant API: no listing, no payment for any merchant, no other route (403)', async () => {
      const otherPartner = await newPartner(server.db, 'Third partner');
      const otherMerchant = await createMerchant(server, otherPartner.apiKey);
      const requests: [string, string, unknown?, Record<string, string>?][] = [
        ['GET', '/v1/merchants/payments', undefined, { 'merchant-id': merchantId }],
        ['GET', '/v1/payments', undefined, { 'merchant-id': otherMerchant.id }],
        ['GET', '/v1/merchants'],
        [
          'POST',
          '/v1/payments',
          { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: 'x' },
          { 'merchant-id': otherMerchant.id },
        ],
        [
          'POST',
          '/v1/payments',
          { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: 'y' },
          { 'merchant-id': merchantId },
        ],
        ['GET', '/v1/point-of-sale/devices'],
        ['POST', '/v1/point-of-sale/devices', { merchantId, name: 'Another till' }],
        ['GET', '/v1/api-keys'],
        ['GET', `/v1/gateway/payment/${(await createPayment(server, partner.apiKey, merchantId)).paymentId}`],
      ];
      for (const [method, path, body, headers] of requests) {
        const refused = await call(server, path, {
          method,
          body,
          headers: { ...headers, 'device-key': device.deviceKey },
        });
        expect([refused.status, expectErrorBody(refused).code], `${method} ${path}`).toEqual([403, 'forbidden']);
      }
      // And with its key sent as an API key, it is no API key at all.
      expectError(
        await call(server, '/v1/merchants', { headers: { 'api-key': device.deviceKey } }),
        401,
        'invalid_api_key',
      );
    });
  });
});
