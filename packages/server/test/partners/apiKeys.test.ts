import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/http/auth.ts';
import { createApiKey } from '../../src/partners/partners.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('/v1/api-keys: a partner lists, makes and revokes its own keys, never beyond its own scopes', () => {
  let server: TestServer;
  let partner: TestPartner;
  let partnerKeyId: string;

  /** The id of the all-scope key a partner was made with. */
  const firstKeyOf = async (partnerId: string) =>
    (await server.db.selectFrom('api_keys').select('id').where('partner_id', '=', partnerId).executeTakeFirstOrThrow())
      .id;

  beforeAll(async () => {
    // Keys are remembered for the default 5 s: a revoke must still stop its key at once in this process.
    server = await startTestServer();
    partner = await newPartner(server.db);
    partnerKeyId = await firstKeyOf(partner.partnerId);
  });
  afterAll(() => server?.close());

  const as = (apiKey: string, path: string, options: { method?: string; body?: unknown } = {}) =>
    call(server, path, { ...options, headers: { 'api-key': apiKey } });

  describe('happy path', () => {
    it('makes a key with the scopes asked, shown once, which works at once with exactly those scopes', async () => {
      const created = await as(partner.apiKey, '/v1/api-keys', { method: 'POST', body: { scopes: ['payments'] } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        keyId: expect.stringMatching(/^key_/),
        prefix: (created.body.apiKey as string).slice(0, 10),
        scopes: ['payments'],
        createdAt: expect.any(String),
        revokedAt: null,
        apiKey: expect.stringMatching(/^sk_/),
      });
      expect((await as(created.body.apiKey, '/v1/payments')).status).toBe(200);
      const merchants = await as(created.body.apiKey, '/v1/merchants');
      expect([merchants.status, expectErrorBody(merchants).code]).toEqual([403, 'forbidden']);

      const listed = await as(partner.apiKey, '/v1/api-keys');
      expect(listed.body.data[0]).toEqual({ ...created.body, apiKey: undefined });
      expect(listed.body.data.map((key: { keyId: string }) => key.keyId)).toContain(partnerKeyId);
      // Never a key itself.
      expect(listed.text).not.toContain(created.body.apiKey);
      expect(listed.text).not.toContain(partner.apiKey);
    });

    it('revokes a key: it stops at once, and revoking it again answers the same', async () => {
      const { keyId, apiKey } = await createApiKey(server.db, partner.partnerId, ['payments']);
      // Remembered as valid by this process before the revoke.
      expect((await as(apiKey, '/v1/payments')).status).toBe(200);
      const revoked = await as(partner.apiKey, `/v1/api-keys/${keyId}`, { method: 'DELETE' });
      expect(revoked.body).toMatchObject({ keyId, scopes: ['payments'], revokedAt: expect.any(String) });
      const after = await as(apiKey, '/v1/payments');
      expect([after.status, expectErrorBody(after).code]).toEqual([401, 'invalid_api_key']);
      const again = await as(partner.apiKey, `/v1/api-keys/${keyId}`, { method: 'DELETE' });
      expect(again.body).toEqual(revoked.body);
    });
  });

  describe('errors', () => {
    it('refuses no scopes, unknown ones and repeated ones', async () => {
      for (const body of [{}, { scopes: [] }, { scopes: ['admin'] }, { scopes: ['payments', 'payments'] }]) {
        const result = await as(partner.apiKey, '/v1/api-keys', { method: 'POST', body });
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      }
    });

    it("answers another partner's key, and an unknown one, as not found, and leaves it working", async () => {
      const other = await newPartner(server.db, 'Other partner');
      for (const keyId of [await firstKeyOf(other.partnerId), 'key_unknown']) {
        const result = await as(partner.apiKey, `/v1/api-keys/${keyId}`, { method: 'DELETE' });
        expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
      }
      expect((await as(other.apiKey, '/v1/merchants')).status).toBe(200);
    });
  });

  describe('security', () => {
    it('never makes or revokes a key with a scope the caller lacks', async () => {
      const merchantsOnly = await createApiKey(server.db, partner.partnerId, ['merchants']);
      const wider = await as(merchantsOnly.apiKey, '/v1/api-keys', {
        method: 'POST',
        body: { scopes: ['merchants', 'payments'] },
      });
      expect([wider.status, expectErrorBody(wider).code]).toEqual([403, 'forbidden']);
      const revokeFull = await as(merchantsOnly.apiKey, `/v1/api-keys/${partnerKeyId}`, { method: 'DELETE' });
      expect([revokeFull.status, expectErrorBody(revokeFull).code]).toEqual([403, 'forbidden']);
      expect((await as(partner.apiKey, '/v1/payments')).status).toBe(200);
      const same = await as(merchantsOnly.apiKey, '/v1/api-keys', { method: 'POST', body: { scopes: ['merchants'] } });
      expect(same.status).toBe(201);
    });

    it('lets a dashboard session manage keys with its CSRF token, and ends it when its own key is revoked', async () => {
      const full = await createApiKey(server.db, partner.partnerId, [...SCOPES]);
      const signIn = await call(server, '/dashboard/api/session', { method: 'POST', body: { apiKey: full.apiKey } });
      const cookie = (signIn.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
      const headers = { cookie, 'x-csrf-token': signIn.body.csrfToken as string };
      const made = await call(server, '/v1/api-keys', { method: 'POST', headers, body: { scopes: ['gateway'] } });
      expect(made.status).toBe(201);
      const forged = await call(server, '/v1/api-keys', {
        method: 'POST',
        headers: { cookie },
        body: { scopes: ['gateway'] },
      });
      expect([forged.status, expectErrorBody(forged).code]).toEqual([403, 'invalid_csrf_token']);

      const revokeOwn = await call(server, `/v1/api-keys/${full.keyId}`, { method: 'DELETE', headers });
      expect(revokeOwn.status).toBe(200);
      const ended = await call(server, '/v1/api-keys', { headers: { cookie } });
      expect([ended.status, expectErrorBody(ended).code]).toEqual([401, 'invalid_session']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/api-keys',
  scope: 'merchants',
  request: async () => ({ method: 'GET', path: '/v1/api-keys' }),
});

runCommonRouteTests({
  name: 'POST /v1/api-keys',
  scope: 'merchants',
  request: async () => ({ method: 'POST', path: '/v1/api-keys', body: { scopes: ['merchants'] } }),
});

runCommonRouteTests({
  name: 'DELETE /v1/api-keys/{keyId}',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'DELETE',
    path: `/v1/api-keys/${(await createApiKey(server.db, partner.partnerId, ['merchants'])).keyId}`,
  }),
});
