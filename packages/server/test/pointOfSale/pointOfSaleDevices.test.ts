import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/partners/partners.ts';
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

/** The pairing token of a pairing link: it rides in the fragment. */
function tokenOf(pairingUrl: string): string {
  return new URL(pairingUrl).hash.replace('#pair=', '');
}

describe('/v1/point-of-sale/devices: a partner pairs, lists and revokes its merchants’ devices', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server?.close());

  const as = (apiKey: string, path: string, options: { method?: string; body?: unknown } = {}) =>
    call(server, path, { ...options, headers: { 'api-key': apiKey } });
  const pair = (body: Record<string, unknown> = {}) =>
    as(partner.apiKey, '/v1/point-of-sale/devices', {
      method: 'POST',
      body: { merchantId, name: 'Front till', ...body },
    });
  const claim = (pairingToken: string) =>
    call(server, '/v1/point-of-sale/pairing', { method: 'POST', body: { pairingToken } });

  describe('happy path', () => {
    it('pairs a device by a one-time link: the first claim gets the key once, a second claim nothing', async () => {
      const paired = await pair({ currency: 'EUR', tipPercents: [5, 10] });
      expect(paired.status, paired.text).toBe(201);
      expect(paired.body.device).toEqual({
        deviceId: expect.stringMatching(/^posd_/),
        merchantId,
        name: 'Front till',
        currency: 'EUR',
        tipPercents: [5, 10],
        status: 'pairing',
        keyPrefix: null,
        pairingExpiresAt: expect.any(String),
        pairedAt: null,
        revokedAt: null,
        createdAt: expect.any(String),
      });
      expect(paired.body.pairingUrl).toMatch(new RegExp(`^${server.url}/pos#pair=[A-Za-z0-9_-]{32}$`));
      const expiresInMs = Date.parse(paired.body.device.pairingExpiresAt) - Date.now();
      expect(expiresInMs).toBeGreaterThan(9 * 60_000);
      expect(expiresInMs).toBeLessThanOrEqual(10 * 60_000);

      const claimed = await claim(tokenOf(paired.body.pairingUrl));
      expect(claimed.status, claimed.text).toBe(201);
      expect(claimed.body).toEqual({
        deviceKey: expect.stringMatching(/^pos_/),
        device: {
          deviceId: paired.body.device.deviceId,
          name: 'Front till',
          currency: 'EUR',
          tipPercents: [5, 10],
          merchant: { id: merchantId, name: 'Corner Shop', iconUrl: null },
        },
      });
      const self = await call(server, '/v1/point-of-sale/device', {
        headers: { 'device-key': claimed.body.deviceKey },
      });
      expect(self.body).toEqual(claimed.body.device);

      const again = await claim(tokenOf(paired.body.pairingUrl));
      expect([again.status, expectErrorBody(again).code]).toEqual([404, 'not_found']);

      const listed = await as(partner.apiKey, `/v1/point-of-sale/devices?merchantId=${merchantId}`);
      const device = listed.body.data.find((d: { deviceId: string }) => d.deviceId === paired.body.device.deviceId);
      expect(device).toMatchObject({ status: 'paired', keyPrefix: claimed.body.deviceKey.slice(0, 10) });
      expect(listed.text).not.toContain(claimed.body.deviceKey);
      // Neither the key nor the pairing token is kept as it was shown.
      const stored = await server.db
        .selectFrom('point_of_sale_devices')
        .selectAll()
        .where('id', '=', device.deviceId)
        .executeTakeFirstOrThrow();
      expect(JSON.stringify(stored)).not.toContain(claimed.body.deviceKey);
      expect(stored.pairing_token_hash).toBeNull();
    });

    it('gives a pairing link claimed twice at once to one device only', async () => {
      const paired = await pair({});
      const pairingToken = new URL(paired.body.pairingUrl).hash.replace('#pair=', '');
      const claims = await Promise.all(
        [1, 2, 3].map(() => call(server, '/v1/point-of-sale/pairing', { method: 'POST', body: { pairingToken } })),
      );
      expect(claims.map((claim) => claim.status).sort()).toEqual([201, 404, 404]);
    });

    it('revokes a device: its key stops at once, and revoking it again answers the same', async () => {
      const paired = await pair();
      const { deviceKey } = (await claim(tokenOf(paired.body.pairingUrl))).body;
      const asDevice = () => call(server, '/v1/point-of-sale/device', { headers: { 'device-key': deviceKey } });
      expect((await asDevice()).status).toBe(200);
      const revoked = await as(partner.apiKey, `/v1/point-of-sale/devices/${paired.body.device.deviceId}`, {
        method: 'DELETE',
      });
      expect(revoked.body).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
      const refused = await asDevice();
      expect([refused.status, expectErrorBody(refused).code]).toEqual([401, 'invalid_device_key']);
      const again = await as(partner.apiKey, `/v1/point-of-sale/devices/${paired.body.device.deviceId}`, {
        method: 'DELETE',
      });
      expect(again.body).toEqual(revoked.body);
    });

    it('a revoked device’s pairing link can no longer be claimed', async () => {
      const paired = await pair();
      await as(partner.apiKey, `/v1/point-of-sale/devices/${paired.body.device.deviceId}`, { method: 'DELETE' });
      expect((await claim(tokenOf(paired.body.pairingUrl))).status).toBe(404);
    });
  });

  describe('errors', () => {
    it('refuses an unknown currency, a bad tip, an empty name and a missing merchant', async () => {
      for (const body of [
        { currency: 'XYZ' },
        { tipPercents: [0] },
        { tipPercents: [5, 5] },
        { name: '' },
        { name: '  ' },
      ]) {
        const refused = await pair(body);
        expect([refused.status, expectErrorBody(refused).code], JSON.stringify(body)).toEqual([
          400,
          expect.stringMatching(/^(params_validation|invalid_params)$/),
        ]);
      }
      const missing = await pair({ merchantId: 'mrch_missing' });
      expect([missing.status, expectErrorBody(missing).code]).toEqual([404, 'merchant_not_found']);
    });

    it('refuses an expired pairing link and a made-up one', async () => {
      const paired = await pair();
      await server.db
        .updateTable('point_of_sale_devices')
        .set({ pairing_expires_at: new Date(Date.now() - 1000) })
        .where('id', '=', paired.body.device.deviceId)
        .execute();
      expect((await claim(tokenOf(paired.body.pairingUrl))).status).toBe(404);
      expect((await claim('not-a-token')).status).toBe(404);
      const listed = await as(partner.apiKey, '/v1/point-of-sale/devices');
      expect(
        listed.body.data.find((d: { deviceId: string }) => d.deviceId === paired.body.device.deviceId),
      ).toMatchObject({ status: 'pairing_expired' });
    });

    it('revoking an unknown device is 404', async () => {
      const missing = await as(partner.apiKey, '/v1/point-of-sale/devices/posd_missing', { method: 'DELETE' });
      expect([missing.status, expectErrorBody(missing).code]).toEqual([404, 'not_found']);
    });
  });

  describe('security', () => {
    it('another partner cannot pair a device for the merchant, see its devices or revoke them', async () => {
      const other = await newPartner(server.db, 'Other partner');
      const paired = await pair();
      const pairing = await as(other.apiKey, '/v1/point-of-sale/devices', {
        method: 'POST',
        body: { merchantId, name: 'Intruder' },
      });
      expect([pairing.status, expectErrorBody(pairing).code]).toEqual([404, 'merchant_not_found']);
      const listed = await as(other.apiKey, '/v1/point-of-sale/devices');
      expect(listed.body.data).toEqual([]);
      const revoke = await as(other.apiKey, `/v1/point-of-sale/devices/${paired.body.device.deviceId}`, {
        method: 'DELETE',
      });
      expect(revoke.status).toBe(404);
    });

    it('a key without the merchants scope cannot pair', async () => {
      const narrow = await createApiKey(server.db, partner.partnerId, ['payments']);
      const refused = await as(narrow.apiKey, '/v1/point-of-sale/devices', {
        method: 'POST',
        body: { merchantId, name: 'Till' },
      });
      expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'forbidden']);
    });
  });
});

runCommonRouteTests({
  name: 'POST /v1/point-of-sale/devices',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'POST',
    path: '/v1/point-of-sale/devices',
    body: { merchantId: (await createMerchant(server, partner.apiKey)).id, name: 'Till' },
  }),
});

runCommonRouteTests({
  name: 'GET /v1/point-of-sale/devices',
  scope: 'merchants',
  request: async () => ({ method: 'GET', path: '/v1/point-of-sale/devices' }),
});

runCommonRouteTests({
  name: 'DELETE /v1/point-of-sale/devices/:deviceId',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => {
    const merchantId = (await createMerchant(server, partner.apiKey)).id;
    const paired = await call(server, '/v1/point-of-sale/devices', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { merchantId, name: 'Till' },
    });
    return { method: 'DELETE', path: `/v1/point-of-sale/devices/${paired.body.device.deviceId}` };
  },
});
