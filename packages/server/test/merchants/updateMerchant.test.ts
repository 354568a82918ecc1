import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant } from '../support/fixtures.ts';
import { createTestCertificate, type LogoServer, serveBytes, startLogoServer } from '../support/logoServer.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('PATCH /v1/merchants/:merchantId', () => {
  let server: TestServer;
  let partner: TestPartner;
  let logoServer: LogoServer;
  let currentLogo: Buffer;
  let firstLogo: Buffer;
  let secondLogo: Buffer;

  const patch = (merchantId: string, body: unknown) =>
    call(server, `/v1/merchants/${merchantId}`, { method: 'PATCH', headers: { 'api-key': partner.apiKey }, body });

  beforeAll(async () => {
    const certificate = await createTestCertificate();
    firstLogo = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#ff0000' } })
      .jpeg()
      .toBuffer();
    secondLogo = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#00ff00' } })
      .jpeg()
      .toBuffer();
    currentLogo = firstLogo;
    logoServer = await startLogoServer({
      host: '127.0.0.1',
      certificate,
      routes: { '/logo.jpg': (request, response) => serveBytes(currentLogo, 'image/jpeg')(request, response) },
    });
    server = await startTestServer({
      context: {
        logoFetch: {
          allowPrivateHosts: true,
          extraCaCertificates: [certificate.cert],
          lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        },
      },
    });
    partner = await newPartner(server.db);
  });
  afterAll(async () => {
    await server.close();
    await logoServer.close();
  });

  describe('happy path', () => {
    it('changes only the fields sent', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const renamed = await patch(merchant.id, { merchantName: 'New Name' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.merchant).toEqual({ ...merchant, name: 'New Name' });
      const reEmailed = await patch(merchant.id, { merchantEmail: 'billing@new-name.io' });
      expect(reEmailed.body.merchant).toEqual({ ...merchant, name: 'New Name', email: 'billing@new-name.io' });
    });

    it('reads the logo at call time: a changed file shows only after another PATCH; null removes it', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const url = `https://logo.test:${logoServer.port}/logo.jpg`;
      const first = await patch(merchant.id, { iconUrl: url });
      expect(first.status, first.text).toBe(200);
      const firstIcon: string = first.body.merchant.iconUrl;
      currentLogo = secondLogo;
      const unchanged = await call(server, `/v1/merchants/${merchant.id}`, { headers: { 'api-key': partner.apiKey } });
      expect(unchanged.body.merchant.iconUrl).toBe(firstIcon);
      expect(Buffer.from(await (await fetch(firstIcon)).arrayBuffer()).equals(firstLogo)).toBe(true);
      const refreshed = await patch(merchant.id, { iconUrl: url });
      expect(refreshed.body.merchant.iconUrl).not.toBe(firstIcon);
      expect(Buffer.from(await (await fetch(refreshed.body.merchant.iconUrl)).arrayBuffer()).equals(secondLogo)).toBe(
        true,
      );
      const removed = await patch(merchant.id, { iconUrl: null });
      expect(removed.body.merchant.iconUrl).toBeNull();
      const read = await call(server, `/v1/merchants/${merchant.id}`, { headers: { 'api-key': partner.apiKey } });
      expect(read.body.merchant.iconUrl).toBeNull();
    });

    it('stores the name without surrounding white space', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const renamed = await patch(merchant.id, { merchantName: '\u3000 New Name \n' });
      expect(renamed.status, renamed.text).toBe(200);
      expect(renamed.body.merchant.name).toBe('New Name');
    });

    it('takes a null name or email as not given', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const reEmailed = await patch(merchant.id, {
        merchantName: null,
        merchantEmail: 'billing@corner-shop.com',
      });
      expect(reEmailed.status, reEmailed.text).toBe(200);
      expect(reEmailed.body.merchant).toEqual({ ...merchant, email: 'billing@corner-shop.com' });
      const renamed = await patch(merchant.id, { merchantName: 'Renamed', merchantEmail: null });
      expect(renamed.body.merchant).toEqual({ ...merchant, name: 'Renamed', email: 'billing@corner-shop.com' });
    });
  });

  describe('errors', () => {
    it('refuses an empty body, and one whose fields are all null but iconUrl absent', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      for (const body of [{}, { merchantName: null, merchantEmail: null }]) {
        const result = await patch(merchant.id, body);
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
        expect(expectErrorBody(result).issues?.map((issue) => issue.field)).toEqual(['body']);
      }
    });

    it('refuses an empty iconUrl as not a URL, on update and on create, keeping the logo', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const result = await patch(merchant.id, { iconUrl: '' });
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      expect(expectErrorBody(result).issues?.map((issue) => issue.field)).toEqual(['iconUrl']);
      const created = await call(server, '/v1/merchants', {
        method: 'POST',
        headers: { 'api-key': partner.apiKey, 'idempotency-key': `empty-icon-${merchant.id}` },
        body: { merchantName: 'No Logo', merchantEmail: 'no@logo.example', iconUrl: '' },
      });
      expect([created.status, expectErrorBody(created).code]).toEqual([400, 'params_validation']);
    });

    it('refuses a name with an invisible character, naming it, without changing the merchant', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const result = await patch(merchant.id, {
        merchantName: 'Corner\u2066Shop',
        merchantEmail: 'new@corner-shop.com',
      });
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      expect(expectErrorBody(result).issues).toEqual([
        { field: 'merchantName', message: 'must not contain bidirectional control characters (found U+2066)' },
      ]);
      const after = await call(server, `/v1/merchants/${merchant.id}`, { headers: { 'api-key': partner.apiKey } });
      expect(after.body.merchant).toEqual({ ...merchant, settlements: { crypto: [], fiat: [] } });
    });

    it.each([
      [{ merchantName: '' }, 'merchantName'],
      [{ merchantName: 'x'.repeat(257) }, 'merchantName'],
      [{ merchantName: '\u3164' }, 'merchantName'],
      [{ merchantName: '\u2800\u034f' }, 'merchantName'],
      [{ merchantEmail: 'a@b' }, 'merchantEmail'],
      [{ iconUrl: 'ftp://logo.test/logo.jpg' }, 'iconUrl'],
      [{ iconUrl: 7 }, 'iconUrl'],
      // Only operators change a status: the field is not the API's, so it is ignored and the PATCH names nothing.
      [{ status: 'inactive' }, 'body'],
    ])('refuses %j without changing the merchant', async (body, field) => {
      const merchant = await createMerchant(server, partner.apiKey);
      const result = await patch(merchant.id, body);
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      expect(expectErrorBody(result).issues?.map((issue) => issue.field)).toContain(field);
      const after = await call(server, `/v1/merchants/${merchant.id}`, { headers: { 'api-key': partner.apiKey } });
      expect(after.body.merchant).toEqual({ ...merchant, settlements: { crypto: [], fiat: [] } });
    });

    it('reports an unknown merchant as 404', async () => {
      const result = await patch('mrch_01ZZZZZZZZZZZZZZZZZZZZZZZZ', { merchantName: 'x' });
      expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
    });

    it('reports a deleted merchant as 404 and leaves it unchanged', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      await call(server, `/v1/merchants/${merchant.id}`, { method: 'DELETE', headers: { 'api-key': partner.apiKey } });
      const result = await patch(merchant.id, { merchantName: 'Revived' });
      expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
      const row = await server.db
        .selectFrom('merchants')
        .select('name')
        .where('id', '=', merchant.id)
        .executeTakeFirstOrThrow();
      expect(row.name).toBe('Corner Shop');
    });
  });
});

runCommonRouteTests({
  name: 'PATCH /v1/merchants/:merchantId',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'PATCH',
    path: `/v1/merchants/${(await createMerchant(server, partner.apiKey)).id}`,
    body: { merchantName: 'Renamed' },
  }),
});
