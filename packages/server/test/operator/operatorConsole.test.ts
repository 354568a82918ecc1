import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCheckoutAppId } from '../../src/checkout/checkoutApp.ts';
import { createSignInLink } from '../../src/dashboard/sessions.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  type CallResult,
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

function cookieLine(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
}

describe('the operator console API: signed in by a one-time link, it manages partners and merchants', () => {
  let server: TestServer;
  let partner: TestPartner;
  let operator: { cookie: string; csrfToken: string };

  async function signInOperator() {
    const link = await createSignInLink(server.db, null, 60_000, new Date());
    const followed = await fetch(`${server.url}/operator/link/${link.token}`, { redirect: 'manual' });
    expect([followed.status, followed.headers.get('location')]).toEqual([303, '/operator']);
    const line = cookieLine(followed, 'paygate_operator') ?? '';
    const cookie = line.split(';')[0] as string;
    const session = await call(server, '/operator/api/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    return { cookie, csrfToken: session.body.csrfToken as string, line };
  }

  /** A request of the operator's session; changes carry its CSRF token. */
  const asOperator = (path: string, options: { method?: string; body?: unknown } = {}) =>
    call(server, path, {
      ...options,
      headers: { cookie: operator.cookie, ...(options.method ? { 'x-csrf-token': operator.csrfToken } : {}) },
    });

  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_CACHE_TTL_MS: '0' } });
    partner = await newPartner(server.db);
    operator = await signInOperator();
  });
  afterAll(() => server?.close());

  describe('happy path', () => {
    it('signs in once by its link, with a cookie kept to the console’s own paths', async () => {
      const { line } = await signInOperator();
      const attributes = line
        .split(';')
        .slice(1)
        .map((part) => part.trim().toLowerCase());
      expect(attributes).toEqual(expect.arrayContaining(['path=/operator', 'httponly', 'samesite=strict']));
      const link = await createSignInLink(server.db, null, 60_000, new Date());
      await fetch(`${server.url}/operator/link/${link.token}`, { redirect: 'manual' });
      const again = await fetch(`${server.url}/operator/link/${link.token}`, { redirect: 'manual' });
      expect([again.status, again.headers.get('location')]).toEqual([303, '/operator/sign-in?link=spent']);
      expect(cookieLine(again, 'paygate_operator')).toBeUndefined();
    });

    it('creates a partner whose key works at once, sets its fees and pins its version, and lists it', async () => {
      const created = await asOperator('/operator/api/partners', {
        method: 'POST',
        body: { name: ' Console partner ' },
      });
      expect(created.status).toBe(201);
      const { partnerId, apiKey } = created.body;
      expect((await call(server, '/v1/merchants', { headers: { 'api-key': apiKey } })).status).toBe(200);

      const fees = await asOperator(`/operator/api/partners/${partnerId}/fees`, {
        method: 'PUT',
        body: { percentage: '1.5', fixed: [{ currency: 'USD', amount: '30' }] },
      });
      expect([fees.status, fees.body]).toEqual([
        200,
        { percentage: '1.5', fixed: [{ currency: 'USD', amount: '30' }] },
      ]);
      const pinned = await asOperator(`/operator/api/partners/${partnerId}/version`, {
        method: 'PUT',
        body: { version: '2026-02-19.preview' },
      });
      expect(pinned.body).toEqual({ partnerId, pinnedVersion: '2026-02-19.preview' });
      const answered = await call(server, '/v1/merchants', { headers: { 'api-key': apiKey } });
      expect(answered.headers.get('pay-version')).toBe('2026-02-19.preview');

      const listed = await asOperator('/operator/api/partners');
      expect(listed.body.data.find((row: { partnerId: string }) => row.partnerId === partnerId)).toEqual({
        partnerId,
        name: 'Console partner',
        pinnedVersion: '2026-02-19.preview',
        createdAt: expect.any(String),
        merchants: 0,
        activeKeys: 1,
        fees: { percentage: '1.5', fixed: [{ currency: 'USD', amount: '30' }] },
        dataThreshold: 'none',
      });
    });

    it('refuses a partner name that shows nothing, naming the field, and creates no partner', async () => {
      const names = ['\u3164\u2800', '\u{e0020}\u180e', '\u0301\u0301'];
      for (const name of names) {
        const result = await asOperator('/operator/api/partners', { method: 'POST', body: { name } });
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
        expect(expectErrorBody(result).issues).toEqual([
          { field: 'name', message: expect.stringMatching(/visible character/) },
        ]);
      }
      const stored = await server.db.selectFrom('partners').select('id').where('name', 'in', names).execute();
      expect(stored).toEqual([]);
    });

    it('sets a partner’s buyer-data threshold in the forms of paygate partner set-data-threshold, and lists it', async () => {
      const { partnerId } = await newPartner(server.db, 'Threshold partner');
      const listedThreshold = async () =>
        (await asOperator('/operator/api/partners')).body.data.find(
          (row: { partnerId: string }) => row.partnerId === partnerId,
        ).dataThreshold;
      const stored = () =>
        server.db
          .selectFrom('partners')
          .select(['data_threshold_currency', 'data_threshold_amount'])
          .where('id', '=', partnerId)
          .executeTakeFirstOrThrow();
      expect(await listedThreshold()).toBe('none');

      const forms: [string, { data_threshold_currency: string | null; data_threshold_amount: string | null }][] = [
        ['USD:100000', { data_threshold_currency: 'USD', data_threshold_amount: '100000' }],
        ['250000', { data_threshold_currency: null, data_threshold_amount: '250000' }],
        ['JPY:0', { data_threshold_currency: 'JPY', data_threshold_amount: '0' }],
        ['none', { data_threshold_currency: null, data_threshold_amount: null }],
      ];
      for (const [threshold, row] of forms) {
        const set = await asOperator(`/operator/api/partners/${partnerId}/data-threshold`, {
          method: 'PUT',
          body: { threshold },
        });
        expect([set.status, set.body]).toEqual([200, { partnerId, dataThreshold: threshold }]);
        expect(await stored()).toEqual(row);
        expect(await listedThreshold()).toBe(threshold);
      }
    });

    it("leaves out the service's own checkout partner: neither listed nor counted, and not changed", async () => {
      const checkoutAppId = await ensureCheckoutAppId(server.db);
      const servicePartner = await server.db
        .selectFrom('partners')
        .innerJoin('apps', 'apps.partner_id', 'partners.id')
        .select(['partners.id', 'partners.pinned_version', 'partners.data_threshold_amount'])
        .where('apps.id', '=', checkoutAppId)
        .executeTakeFirstOrThrow();
      // Other test files share the database and add partners meanwhile: every partner stored before the listing is
      // listed, but the service's own.
      const stored = await server.db.selectFrom('partners').select('id').execute();
      const listed = ((await asOperator('/operator/api/partners')).body.data as { partnerId: string }[]).map(
        (row) => row.partnerId,
      );
      expect(listed).not.toContain(servicePartner.id);
      expect(listed).toEqual(
        expect.arrayContaining(stored.map((row) => row.id).filter((id) => id !== servicePartner.id)),
      );
      expect(listed).toContain(partner.partnerId);

      const changes: [string, unknown][] = [
        ['fees', { percentage: '5', fixed: [{ currency: 'USD', amount: '100' }] }],
        ['version', { version: '2026-02-19.preview' }],
        ['data-threshold', { threshold: 'USD:1' }],
      ];
      for (const [change, body] of changes) {
        const refused = await asOperator(`/operator/api/partners/${servicePartner.id}/${change}`, {
          method: 'PUT',
          body,
        });
        expect([refused.status, expectErrorBody(refused).code], change).toEqual([404, 'not_found']);
      }
      const after = await server.db
        .selectFrom('partners')
        .select(['id', 'pinned_version', 'data_threshold_amount'])
        .where('id', '=', servicePartner.id)
        .executeTakeFirstOrThrow();
      expect(after).toEqual(servicePartner);
      const fees = await server.db
        .selectFrom('partner_fee_schedules')
        .select('partner_id')
        .where('partner_id', '=', servicePartner.id)
        .execute();
      expect(fees).toEqual([]);
    });

    it('lists merchants of every partner a page at a time, and suspends and reactivates one', async () => {
      const first = await createMerchant(server, partner.apiKey);
      const second = await createMerchant(server, partner.apiKey, {
        merchantName: 'Second Shop',
        merchantEmail: 'owner@second-shop.com',
      });
      const page1 = await asOperator(`/operator/api/merchants?partnerId=${partner.partnerId}&limit=1`);
      expect(page1.body.data).toEqual([
        expect.objectContaining({
          merchantId: first.id,
          partnerId: partner.partnerId,
          status: 'active',
          deleted: false,
        }),
      ]);
      const page2 = await asOperator(
        `/operator/api/merchants?partnerId=${partner.partnerId}&limit=1&cursor=${encodeURIComponent(page1.body.nextCursor)}`,
      );
      expect(page2.body.data.map((row: { merchantId: string }) => row.merchantId)).toEqual([second.id]);
      expect(page2.body.nextCursor).toBeNull();

      const createFor = (merchantId: string) =>
        call(server, '/v1/payments', {
          method: 'POST',
          headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId, 'idempotency-key': randomUUID() },
          body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `order-${randomUUID()}` },
        });
      const suspended = await asOperator(`/operator/api/merchants/${first.id}/status`, {
        method: 'PUT',
        body: { status: 'suspended' },
      });
      expect(suspended.body).toEqual({ merchantId: first.id, status: 'suspended' });
      const refused = await createFor(first.id);
      expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'forbidden']);
      const suspendedOnly = await asOperator(`/operator/api/merchants?partnerId=${partner.partnerId}&status=suspended`);
      expect(suspendedOnly.body.data.map((row: { merchantId: string }) => row.merchantId)).toEqual([first.id]);

      await asOperator(`/operator/api/merchants/${first.id}/status`, { method: 'PUT', body: { status: 'active' } });
      expect((await createFor(first.id)).status).toBe(201);
    });

    it('signs out: the session ends and the cookie is cleared', async () => {
      const own = await signInOperator();
      const out = await call(server, '/operator/api/session', {
        method: 'DELETE',
        headers: { cookie: own.cookie, 'x-csrf-token': own.csrfToken },
      });
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie()[0]).toMatch(/^paygate_operator=;/);
      const after = await call(server, '/operator/api/partners', { headers: { cookie: own.cookie } });
      expect([after.status, expectErrorBody(after).code]).toEqual([401, 'invalid_session']);
    });
  });

  describe('errors', () => {
    it('refuses bad fees, unknown versions, statuses and ids', async () => {
      const badFees: [string, unknown][] = [
        [partner.partnerId, { percentage: 'lots', fixed: [] }],
        [
          partner.partnerId,
          {
            percentage: '1',
            fixed: [
              { currency: 'USD', amount: '1' },
              { currency: 'USD', amount: '2' },
            ],
          },
        ],
        [partner.partnerId, { percentage: '1', fixed: [{ currency: 'usd', amount: '1' }] }],
        [partner.partnerId, { percentage: '1', fixed: [{ currency: 'USD', amount: '-1' }] }],
      ];
      for (const [partnerId, body] of badFees) {
        const result = await asOperator(`/operator/api/partners/${partnerId}/fees`, { method: 'PUT', body });
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      }
      const checks: [CallResult, number, string][] = [
        [
          await asOperator('/operator/api/partners/ptr_unknown/fees', {
            method: 'PUT',
            body: { percentage: '1', fixed: [] },
          }),
          404,
          'not_found',
        ],
        [
          await asOperator(`/operator/api/partners/${partner.partnerId}/version`, {
            method: 'PUT',
            body: { version: '2020-01-01' },
          }),
          400,
          'params_validation',
        ],
        [
          await asOperator('/operator/api/merchants/mrch_unknown/status', {
            method: 'PUT',
            body: { status: 'active' },
          }),
          404,
          'merchant_not_found',
        ],
        [
          await asOperator('/operator/api/merchants/mrch_unknown/status', {
            method: 'PUT',
            body: { status: 'closed' },
          }),
          400,
          'params_validation',
        ],
        [
          await asOperator('/operator/api/partners', { method: 'POST', body: { name: '   ' } }),
          400,
          'params_validation',
        ],
        [await asOperator('/operator/api/merchants?cursor=forged'), 400, 'invalid_params'],
      ];
      for (const [result, status, code] of checks)
        expect([result.status, expectErrorBody(result).code]).toEqual([status, code]);
    });
  });

  describe('data threshold errors', () => {
    it('refuses a malformed threshold with the interface’s error body, naming the field, and changes nothing', async () => {
      const path = `/operator/api/partners/${partner.partnerId}/data-threshold`;
      for (const threshold of ['USD:1.5', 'usd:100', 'XYZ:100', '-5', 'lots', 'None', '1e5', 'USD:']) {
        const result = await asOperator(path, { method: 'PUT', body: { threshold } });
        const error = expectErrorBody(result);
        expect([result.status, error.code, error.issues?.[0]?.field], threshold).toEqual([
          400,
          'params_validation',
          'threshold',
        ]);
      }
      for (const body of [{}, { threshold: '' }, { threshold: 100000 }, { threshold: 'x'.repeat(65) }]) {
        const result = await asOperator(path, { method: 'PUT', body });
        expect([result.status, expectErrorBody(result).code], JSON.stringify(body)).toEqual([400, 'params_validation']);
      }
      const row = await server.db
        .selectFrom('partners')
        .select(['data_threshold_currency', 'data_threshold_amount'])
        .where('id', '=', partner.partnerId)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ data_threshold_currency: null, data_threshold_amount: null });
      const unknown = await asOperator('/operator/api/partners/ptr_unknown/data-threshold', {
        method: 'PUT',
        body: { threshold: 'USD:100' },
      });
      expect([unknown.status, expectErrorBody(unknown).code]).toEqual([404, 'not_found']);
    });
  });

  describe('security', () => {
    it('answers 401 without its own session: no cookie, a forged one, or a partner’s dashboard session', async () => {
      const partnerLink = await createSignInLink(server.db, partner.partnerId, 60_000, new Date());
      const dashboard = await fetch(`${server.url}/dashboard/link/${partnerLink.token}`, { redirect: 'manual' });
      const dashboardCookie = (cookieLine(dashboard, 'paygate_session') ?? '').split(';')[0] as string;
      for (const cookie of [
        undefined,
        'paygate_operator=forged',
        dashboardCookie,
        dashboardCookie.replace('paygate_session', 'paygate_operator'),
      ]) {
        const result = await call(server, '/operator/api/partners', { headers: cookie ? { cookie } : {} });
        expect([result.status, expectErrorBody(result).code]).toEqual([401, 'invalid_session']);
      }
      // Nor does the operator's session act for a partner on the API.
      const api = await call(server, '/v1/payments', { headers: { cookie: operator.cookie } });
      expect([api.status, expectErrorBody(api).code]).toEqual([401, 'missing_api_key']);
    });

    it('refuses a partner’s link at the console and the operator’s at the dashboard, and spends both', async () => {
      const partnerLink = await createSignInLink(server.db, partner.partnerId, 60_000, new Date());
      const atConsole = await fetch(`${server.url}/operator/link/${partnerLink.token}`, { redirect: 'manual' });
      expect(atConsole.headers.get('location')).toBe('/operator/sign-in?link=spent');
      const operatorLink = await createSignInLink(server.db, null, 60_000, new Date());
      const atDashboard = await fetch(`${server.url}/dashboard/link/${operatorLink.token}`, { redirect: 'manual' });
      expect(atDashboard.headers.get('location')).toBe('/dashboard/sign-in?link=spent');
      // Read at the wrong console, a link is spent: it signs in nowhere afterwards.
      const right = await fetch(`${server.url}/operator/link/${operatorLink.token}`, { redirect: 'manual' });
      expect(right.headers.get('location')).toBe('/operator/sign-in?link=spent');
    });

    it('lets no partner set a threshold: not its API key, nor its dashboard session, nor a change without CSRF', async () => {
      const path = `/operator/api/partners/${partner.partnerId}/data-threshold`;
      const partnerLink = await createSignInLink(server.db, partner.partnerId, 60_000, new Date());
      const dashboard = await fetch(`${server.url}/dashboard/link/${partnerLink.token}`, { redirect: 'manual' });
      const dashboardCookie = (cookieLine(dashboard, 'paygate_session') ?? '').split(';')[0] as string;
      for (const headers of <Record<string, string>[]>[
        {},
        { 'api-key': partner.apiKey },
        { cookie: dashboardCookie, 'x-csrf-token': 'any' },
        { cookie: dashboardCookie.replace('paygate_session', 'paygate_operator') },
      ]) {
        const result = await call(server, path, { method: 'PUT', headers, body: { threshold: 'USD:1' } });
        expect([result.status, expectErrorBody(result).code], JSON.stringify(headers)).toEqual([
          401,
          'invalid_session',
        ]);
      }
      const withoutCsrf = await call(server, path, {
        method: 'PUT',
        headers: { cookie: operator.cookie },
        body: { threshold: 'USD:1' },
      });
      expect([withoutCsrf.status, expectErrorBody(withoutCsrf).code]).toEqual([403, 'invalid_csrf_token']);
      const row = await server.db
        .selectFrom('partners')
        .select('data_threshold_amount')
        .where('id', '=', partner.partnerId)
        .executeTakeFirstOrThrow();
      expect(row.data_threshold_amount).toBeNull();
    });

    it('refuses a change without the CSRF token and changes nothing', async () => {
      const merchant = await createMerchant(server, partner.apiKey, {
        merchantName: 'Guarded Shop',
        merchantEmail: 'owner@guarded-shop.com',
      });
      for (const token of [undefined, 'forged']) {
        const refused = await call(server, `/operator/api/merchants/${merchant.id}/status`, {
          method: 'PUT',
          headers: { cookie: operator.cookie, ...(token ? { 'x-csrf-token': token } : {}) },
          body: { status: 'suspended' },
        });
        expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'invalid_csrf_token']);
      }
      const row = await server.db
        .selectFrom('merchants')
        .select('status')
        .where('id', '=', merchant.id)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('active');
    });
  });
});
