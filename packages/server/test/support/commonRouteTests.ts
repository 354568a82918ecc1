import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/http/auth.ts';
import { createApiKey, createApp, pinPartnerVersion, revokeApiKey } from '../../src/partners/partners.ts';
import {
  call,
  type CallResult,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from './testServer.ts';

export interface RouteRequest {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface CommonRouteSpec {
  name: string;
  scope: Scope;
  /** Whether a wallet app (App-Id + Client-Id) may call the route. */
  allowApp?: boolean;
  /** Builds a valid request for `partner`, creating what it needs (a merchant, a destination). */
  request: (server: TestServer, partner: TestPartner) => Promise<RouteRequest>;
  /** The route reads a resource owned by the partner, so another partner's key must get 404. */
  ownedResource?: boolean;
  /** The resource is public to every partner (gateway payments, D2): another partner's key must succeed. */
  openToAllPartners?: boolean;
  /** The server to run against when the route needs more than a plain one (e.g. chains); it is closed afterwards. */
  server?: () => Promise<TestServer>;
}

function send(server: TestServer, request: RouteRequest, credentials: Record<string, string>): Promise<CallResult> {
  const idempotencyKey = request.headers?.['idempotency-key'];
  const fresh: Record<string, string> = idempotencyKey
    ? { 'idempotency-key': `${idempotencyKey}-${Math.random()}` }
    : {};
  return call(server, request.path, {
    method: request.method,
    body: request.body,
    headers: { ...request.headers, ...fresh, ...credentials },
  });
}

function expectError(result: CallResult, status: number, code: string): void {
  expect({ status: result.status, code: expectErrorBody(result).code }).toEqual({ status, code });
  expect(result.headers.get('pay-version')).toMatch(/^\d{4}-\d{2}-\d{2}/);
  expect(result.headers.get('wcp-version')).toBe(result.headers.get('pay-version'));
}

/**
 * The authentication, authorisation and version checks every authenticated route must pass (D2, D3), run
 * against a real server, so no route can forget one.
 */
export function runCommonRouteTests(spec: CommonRouteSpec): void {
  describe(`${spec.name}: security and versions`, () => {
    let server: TestServer;
    let partner: TestPartner;
    let other: TestPartner;
    let request: RouteRequest;

    beforeAll(async () => {
      server = spec.server ? await spec.server() : await startTestServer();
      partner = await newPartner(server.db);
      other = await newPartner(server.db, 'Other partner');
      request = await spec.request(server, partner);
    });
    afterAll(() => server.close());

    it('accepts the right key, as Api-Key and as a Bearer token, and echoes the version', async () => {
      const viaHeader = await send(server, request, { 'api-key': partner.apiKey });
      expect(viaHeader.status, viaHeader.text).toBeLessThan(300);
      expect(viaHeader.headers.get('pay-version')).toBe('2026-02-18');
      expect(viaHeader.headers.get('wcp-version')).toBe('2026-02-18');
      const viaBearer = await send(server, request, { authorization: `Bearer ${partner.apiKey}` });
      expect(viaBearer.status, viaBearer.text).toBeLessThan(300);
    });

    it('refuses a request without credentials', async () => {
      expectError(await send(server, request, {}), 401, 'missing_api_key');
    });

    it('refuses a wrong key and a revoked key', async () => {
      expectError(await send(server, request, { 'api-key': 'sk_not-a-real-key' }), 401, 'invalid_api_key');
      const revoked = await createApiKey(server.db, partner.partnerId);
      await revokeApiKey(server.db, revoked.keyId);
      expectError(await send(server, request, { 'api-key': revoked.apiKey }), 401, 'invalid_api_key');
    });

    it('refuses a key without the route scope', async () => {
      const others = (['merchants', 'payments', 'gateway', 'x402'] as const).filter((scope) => scope !== spec.scope);
      const narrow = await createApiKey(server.db, partner.partnerId, [...others]);
      expectError(await send(server, request, { 'api-key': narrow.apiKey }), 403, 'forbidden');
    });

    if (spec.ownedResource) {
      it("reports another partner's resource as not found", async () => {
        const refused = await send(server, request, { 'api-key': other.apiKey });
        // The code names what was looked for (not_found, merchant_not_found, payment_not_found), never a refusal.
        expect([refused.status, expectErrorBody(refused).code]).toEqual([
          404,
          expect.stringMatching(/^(\w+_)?not_found$/),
        ]);
      });
    }

    if (spec.openToAllPartners) {
      it("lets another partner's credentials act on it", async () => {
        const result = await send(server, request, { 'api-key': other.apiKey });
        expect(result.status, result.text).toBeLessThan(300);
      });
    }

    it('handles wallet app credentials as decided', async () => {
      const app = await createApp(server.db, partner.partnerId, 'Wallet');
      const withApp = await send(server, request, { 'app-id': app.appId, 'client-id': 'device-1' });
      if (spec.allowApp) expect(withApp.status, withApp.text).toBeLessThan(300);
      else expectError(withApp, 403, 'forbidden');
      expectError(await send(server, request, { 'app-id': app.appId }), 401, 'missing_client_id');
      expectError(await send(server, request, { 'app-id': 'app_unknown', 'client-id': 'c' }), 401, 'invalid_app_id');
      expectError(
        await send(server, request, { 'app-id': app.appId, 'client-id': 'c', 'api-key': partner.apiKey }),
        400,
        'conflicting_auth_headers',
      );
    });

    it('resolves Pay-Version and its WCP-Version alias, refusing bad versions', async () => {
      const key = { 'api-key': partner.apiKey };
      const preview = await send(server, request, { ...key, 'pay-version': '2026-02-19.preview' });
      expect(preview.status, preview.text).toBeLessThan(300);
      expect(preview.headers.get('pay-version')).toBe('2026-02-19.preview');
      const alias = await send(server, request, { ...key, 'wcp-version': '2026-02-19.preview' });
      expect(alias.headers.get('pay-version')).toBe('2026-02-19.preview');
      expect(alias.headers.get('wcp-version')).toBe('2026-02-19.preview');
      expectError(await send(server, request, { ...key, 'pay-version': 'yesterday' }), 400, 'invalid_api_version');
      expectError(await send(server, request, { ...key, 'pay-version': '2026-02-30' }), 400, 'invalid_api_version');
      expectError(await send(server, request, { ...key, 'pay-version': '2025-01-01' }), 400, 'unknown_api_version');
      expectError(
        await send(server, request, { ...key, 'pay-version': '2026-02-18', 'wcp-version': '2026-02-19.preview' }),
        400,
        'invalid_api_version',
      );
      const pinned = await newPartner(server.db, 'Pinned partner');
      await pinPartnerVersion(server.db, pinned.partnerId, '2026-02-19.preview');
      const pinnedRequest = await spec.request(server, pinned);
      const downgrade = await send(server, pinnedRequest, { 'api-key': pinned.apiKey, 'pay-version': '2026-02-18' });
      expectError(downgrade, 400, 'api_version_downgrade');
      const defaulted = await send(server, pinnedRequest, { 'api-key': pinned.apiKey });
      expect(defaulted.headers.get('pay-version')).toBe('2026-02-19.preview');
    });
  });
}
