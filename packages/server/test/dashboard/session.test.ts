import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../src/dashboard/sessions.ts';
import { hashApiKey, SCOPES } from '../../src/http/auth.ts';
import { createApiKey, revokeApiKey } from '../../src/partners/partners.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import {
  type CallResult,
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

/** The `name=value` of the response's session cookie, and its attributes, lower case. */
function sessionCookieOf(result: CallResult | Response): { value: string; attributes: string[] } | undefined {
  const line = result.headers.getSetCookie().find((cookie) => cookie.startsWith('paygate_session='));
  if (!line) return undefined;
  const [pair, ...attributes] = line.split(';').map((part) => part.trim());
  return {
    value: (pair as string).slice('paygate_session='.length),
    attributes: attributes.map((a) => a.toLowerCase()),
  };
}

describe('dashboard sessions: sign in with an API key or a one-time link, act with its scopes, sign out', () => {
  let server: TestServer;
  let partner: TestPartner;
  let other: TestPartner;

  beforeAll(async () => {
    // Credentials are read afresh on every request, so a revoked key or an ended session stops at once.
    server = await startTestServer({ env: { AUTH_CACHE_TTL_MS: '0', DASHBOARD_SIGN_IN_MAX: '1000' } });
    partner = await newPartner(server.db);
    other = await newPartner(server.db, 'Other partner');
  });
  afterAll(() => server?.close());

  async function signIn(apiKey: string) {
    const result = await call(server, '/dashboard/api/session', { method: 'POST', body: { apiKey } });
    const cookie = sessionCookieOf(result);
    return { result, cookie: cookie ? `paygate_session=${cookie.value}` : '', csrfToken: result.body?.csrfToken };
  }

  describe('happy path', () => {
    it('signs in with an API key: an HttpOnly, SameSite=Strict cookie and the CSRF token; the cookie reads the API', async () => {
      const { result, cookie, csrfToken } = await signIn(partner.apiKey);
      expect(result.status).toBe(201);
      expect(result.body).toEqual({
        partnerId: partner.partnerId,
        partnerName: 'Test partner',
        keyId: expect.stringMatching(/^key_/),
        scopes: [...SCOPES],
        csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        expiresAt: expect.any(String),
      });
      // Eight hours by default.
      const lifetime = Date.parse(result.body.expiresAt) - Date.now();
      expect(lifetime).toBeGreaterThan(8 * 3_600_000 - 60_000);
      expect(lifetime).toBeLessThanOrEqual(8 * 3_600_000);
      const attributes = sessionCookieOf(result)?.attributes ?? [];
      expect(attributes).toEqual(expect.arrayContaining(['path=/', 'httponly', 'samesite=strict']));
      expect(attributes.some((attribute) => attribute.startsWith('expires='))).toBe(true);
      // Served over http here: a Secure cookie would never come back.
      expect(attributes).not.toContain('secure');

      expect((await call(server, '/dashboard/api/session', { headers: { cookie } })).body).toEqual(result.body);
      const { paymentId } = await createPayment(
        server,
        partner.apiKey,
        (await createMerchant(server, partner.apiKey)).id,
      );
      const listed = await call(server, '/v1/payments', { headers: { cookie } });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((payment: { paymentId: string }) => payment.paymentId)).toContain(paymentId);
      // A change with the session's CSRF token goes through.
      const created = await call(server, '/v1/merchants', {
        method: 'POST',
        headers: { cookie, 'x-csrf-token': csrfToken, 'idempotency-key': randomUUID() },
        body: { merchantName: 'Made from the dashboard', merchantEmail: 'owner@dashboard-shop.com' },
      });
      expect(created.status).toBe(201);
    });

    it('marks the cookie Secure when the service is served over https', async () => {
      const served = server.ctx.config.baseUrl;
      server.ctx.config.baseUrl = 'https://pay.example.com';
      try {
        const { result } = await signIn(partner.apiKey);
        expect(sessionCookieOf(result)?.attributes).toContain('secure');
      } finally {
        server.ctx.config.baseUrl = served;
      }
    });

    it('signs in once with a one-time link, with every scope; the link then sends to sign-in', async () => {
      const link = await createSignInLink(server.db, partner.partnerId, 60_000, new Date());
      const first = await fetch(`${server.url}/dashboard/link/${link.token}`, { redirect: 'manual' });
      expect([first.status, first.headers.get('location')]).toEqual([303, '/dashboard']);
      const cookie = sessionCookieOf(first);
      expect(cookie).toBeDefined();
      const session = await call(server, '/dashboard/api/session', {
        headers: { cookie: `paygate_session=${cookie?.value}` },
      });
      expect(session.body).toMatchObject({
        partnerId: partner.partnerId,
        partnerName: 'Test partner',
        keyId: null,
        scopes: [...SCOPES],
      });
      // A session as long as one signed in with a key, however short the link's own life.
      expect(Date.parse(session.body.expiresAt) - Date.now()).toBeGreaterThan(8 * 3_600_000 - 60_000);

      const again = await fetch(`${server.url}/dashboard/link/${link.token}`, { redirect: 'manual' });
      expect([again.status, again.headers.get('location')]).toEqual([303, '/dashboard/sign-in?link=spent']);
      expect(sessionCookieOf(again)).toBeUndefined();
    });

    it('signs out: the session ends for good and the cookie is cleared', async () => {
      const { cookie, csrfToken } = await signIn(partner.apiKey);
      const out = await call(server, '/dashboard/api/session', {
        method: 'DELETE',
        headers: { cookie, 'x-csrf-token': csrfToken },
      });
      expect(out.status).toBe(204);
      const cleared = sessionCookieOf(out);
      expect(cleared?.value).toBe('');
      expect(cleared?.attributes.find((attribute) => attribute.startsWith('expires='))).toMatch(/1970/);
      for (const path of ['/dashboard/api/session', '/v1/payments']) {
        const after = await call(server, path, { headers: { cookie } });
        expect([after.status, expectErrorBody(after).code]).toEqual([401, 'invalid_session']);
      }
    });
  });

  describe('errors', () => {
    it('refuses a wrong key, and a body without a key', async () => {
      const wrong = await signIn('sk_not_a_key');
      expect([wrong.result.status, expectErrorBody(wrong.result).code]).toEqual([401, 'invalid_api_key']);
      expect(sessionCookieOf(wrong.result)).toBeUndefined();
      for (const body of [{}, { apiKey: '' }, { apiKey: 42 }, ['x']]) {
        const refused = await call(server, '/dashboard/api/session', { method: 'POST', body });
        expect([refused.status, expectErrorBody(refused).code]).toEqual([400, 'params_validation']);
      }
    });

    it('answers 401 invalid_session without a cookie, or with one no session has', async () => {
      for (const headers of [{}, { cookie: 'paygate_session=forged' }] as Record<string, string>[]) {
        const result = await call(server, '/dashboard/api/session', { headers });
        expect([result.status, expectErrorBody(result).code]).toEqual([401, 'invalid_session']);
      }
      const api = await call(server, '/v1/payments', { headers: { cookie: 'paygate_session=forged' } });
      expect([api.status, expectErrorBody(api).code]).toEqual([401, 'invalid_session']);
    });

    it('limits sign-in attempts per address, right or wrong, with Retry-After', async () => {
      const limited = await startTestServer({ env: { DASHBOARD_SIGN_IN_MAX: '3' } });
      try {
        const attempt = (apiKey: string) =>
          call(limited, '/dashboard/api/session', { method: 'POST', body: { apiKey } });
        expect((await attempt('sk_guess_1')).status).toBe(401);
        expect((await attempt('sk_guess_2')).status).toBe(401);
        expect((await attempt(partner.apiKey)).status).toBe(201);
        const refused = await attempt(partner.apiKey);
        expect([refused.status, expectErrorBody(refused).code]).toEqual([429, 'rate_limited']);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        await limited.close();
      }
    });
  });

  describe('security', () => {
    it('refuses a change without the CSRF token, or with another, and changes nothing', async () => {
      const { cookie, csrfToken } = await signIn(partner.apiKey);
      const other = await signIn(partner.apiKey);
      const merchantCount = async () =>
        (
          await server.db
            .selectFrom('merchants')
            .select((eb) => eb.fn.countAll<string>().as('count'))
            .where('partner_id', '=', partner.partnerId)
            .executeTakeFirstOrThrow()
        ).count;
      const before = await merchantCount();
      for (const token of [undefined, 'x', other.csrfToken as string, `${csrfToken}x`]) {
        const refused = await call(server, '/v1/merchants', {
          method: 'POST',
          headers: {
            cookie,
            'idempotency-key': randomUUID(),
            ...(token === undefined ? {} : { 'x-csrf-token': token }),
          },
          body: { merchantName: 'Forged', merchantEmail: 'forged@shop.example' },
        });
        expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'invalid_csrf_token']);
      }
      const signOut = await call(server, '/dashboard/api/session', { method: 'DELETE', headers: { cookie } });
      expect([signOut.status, expectErrorBody(signOut).code]).toEqual([403, 'invalid_csrf_token']);
      expect(await merchantCount()).toBe(before);
      // Still signed in.
      expect((await call(server, '/dashboard/api/session', { headers: { cookie } })).status).toBe(200);
    });

    it('acts with the scopes of the key it signed in with, and stops when that key is revoked', async () => {
      const paymentsOnly = await createApiKey(server.db, partner.partnerId, ['payments']);
      const { cookie } = await signIn(paymentsOnly.apiKey);
      expect((await call(server, '/v1/payments', { headers: { cookie } })).status).toBe(200);
      const merchants = await call(server, '/v1/merchants', { headers: { cookie } });
      expect([merchants.status, expectErrorBody(merchants).code]).toEqual([403, 'forbidden']);

      await revokeApiKey(server.db, paymentsOnly.keyId);
      const revoked = await call(server, '/v1/payments', { headers: { cookie } });
      expect([revoked.status, expectErrorBody(revoked).code]).toEqual([401, 'invalid_session']);
    });

    it('stops at its expiry', async () => {
      const { cookie } = await signIn(partner.apiKey);
      await server.db
        .updateTable('dashboard_sessions')
        .set({ expires_at: new Date(Date.now() - 1_000) })
        .where('token_hash', '=', hashApiKey(cookie.slice('paygate_session='.length)))
        .execute();
      const expired = await call(server, '/v1/payments', { headers: { cookie } });
      expect([expired.status, expectErrorBody(expired).code]).toEqual([401, 'invalid_session']);
    });

    it("answers another partner's payment as not found, and keeps only hashes of cookies and links", async () => {
      const theirMerchant = (await createMerchant(server, other.apiKey)).id;
      const theirs = await createPayment(server, other.apiKey, theirMerchant);
      const { cookie } = await signIn(partner.apiKey);
      const result = await call(server, `/v1/payments/${theirs.paymentId}`, {
        headers: { cookie, 'merchant-id': theirMerchant },
      });
      expect(result.status).toBe(404);

      const secret = cookie.slice('paygate_session='.length);
      const link = await createSignInLink(server.db, partner.partnerId, 60_000, new Date());
      const stored = JSON.stringify([
        await server.db.selectFrom('dashboard_sessions').selectAll().execute(),
        await server.db.selectFrom('dashboard_links').selectAll().execute(),
      ]);
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(link.token);
      expect(stored).toContain(hashApiKey(secret));
    });

    it('refuses an expired one-time link and one for an unknown partner', async () => {
      const expired = await createSignInLink(server.db, partner.partnerId, 60_000, new Date(Date.now() - 120_000));
      const result = await fetch(`${server.url}/dashboard/link/${expired.token}`, { redirect: 'manual' });
      expect([result.status, result.headers.get('location')]).toEqual([303, '/dashboard/sign-in?link=spent']);
      await expect(createSignInLink(server.db, 'ptr_unknown', 60_000, new Date())).rejects.toThrow(/does not exist/);
    });
  });
});
