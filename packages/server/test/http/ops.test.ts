import { SERVICE_VERSION } from '../../src/version.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/partners/partners.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('operational endpoints and cross-cutting behaviour', () => {
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    server = await startTestServer({ env: { BODY_LIMIT_BYTES: '2048' } });
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  it('answers /healthz and /readyz (database reachable)', async () => {
    expect((await call(server, '/healthz')).body).toEqual({ status: 'ok', version: SERVICE_VERSION });
    expect(SERVICE_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    const ready = await call(server, '/readyz');
    expect([ready.status, ready.body.database]).toEqual([200, 'ok']);
  });

  it('exposes Prometheus metrics including request durations by route', async () => {
    await call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey } });
    const metrics = await call(server, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(metrics.text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/v1\/merchants",status="200"\} [1-9]/,
    );
    expect(metrics.text).toContain('process_cpu_user_seconds_total');
  });

  it('serves an OpenAPI 3.1 document generated from the routes, with the security schemes', async () => {
    const document = (await call(server, '/openapi.json')).body;
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
      'ApiKey',
      'AppId',
      'BearerApiKey',
      'ClientId',
      'DeviceKey',
    ]);
    for (const path of [
      '/v1/merchants',
      '/v1/merchants/{merchantId}',
      '/v1/merchants/{merchantId}/settlements',
      '/v1/merchants/{merchantId}/settlements/crypto',
      '/v1/merchants/{merchantId}/settlements/crypto/{id}',
    ]) {
      expect(document.paths, path).toHaveProperty([path]);
    }
    const create = document.paths['/v1/merchants'].post;
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['merchantName', 'merchantEmail']);
    expect(create.responses).toHaveProperty('201');
    expect(create.responses['409'].content['application/json'].schema.required).toEqual(['message', 'code']);
    // Each error response names the codes answered with its status.
    const errorCode = (status: string) =>
      create.responses[status].content['application/json'].schema.properties.code.enum;
    expect(errorCode('401')).toEqual(
      expect.arrayContaining(['missing_api_key', 'invalid_api_key', 'missing_merchant_id']),
    );
    expect(errorCode('401')).not.toContain('params_validation');
    expect(errorCode('400')).toEqual(
      expect.arrayContaining(['invalid_params', 'params_validation', 'api_version_downgrade']),
    );
    expect(errorCode('429')).toContain('rate_limited');
    expect(create.security).toContainEqual({ ApiKey: [] });
    expect(document.paths).not.toHaveProperty(['/healthz']);
  });

  it('serves a human-readable docs page', async () => {
    const docs = await fetch(`${server.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('sets security headers and a request id on every response, echoing a sane given one', async () => {
    const result = await call(server, '/healthz', { headers: { 'x-request-id': 'trace-12345678' } });
    expect(result.headers.get('request-id')).toBe('trace-12345678');
    expect(result.headers.get('x-content-type-options')).toBe('nosniff');
    expect(result.headers.get('content-security-policy')).toContain("default-src 'self'");
    const generated = await call(server, '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends the JSON API security headers on API responses, errors included, and no page headers', async () => {
    const answers = [
      await call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey } }),
      await call(server, '/v1/merchants'),
      await call(server, '/v1/nothing-here'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404]);
    for (const answer of answers) {
      expect(answer.headers.get('content-type')).toContain('application/json');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('strict-transport-security')).toContain('max-age=');
      expect(answer.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.headers.get('referrer-policy')).toBeNull();
    }
  });

  it('answers an unknown route with 404 not_found and the error body', async () => {
    const result = await call(server, '/v1/nothing-here');
    expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
    expect(result.headers.get('pay-version')).toBe('2026-02-18');
  });

  it('refuses text PostgreSQL cannot store (a NUL character) with 400, not 500', async () => {
    const headers = { 'api-key': partner.apiKey };
    const search = await call(server, '/v1/merchants?search=%00', { headers });
    expect([search.status, expectErrorBody(search).code]).toEqual([400, 'invalid_params']);
    const path = await call(server, '/v1/merchants/mrch_%00', { headers });
    expect([path.status, expectErrorBody(path).code]).toEqual([400, 'invalid_params']);
    const body = await call(server, '/v1/merchants', {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'nul' },
      body: { merchantName: 'a\u0000b', merchantEmail: 'a@b.co' },
    });
    // The merchant name rule refuses control characters before the database sees them.
    expect([body.status, expectErrorBody(body).code]).toEqual([400, 'params_validation']);
  });

  it('refuses a body over the limit with 413 invalid_params', async () => {
    const result = await call(server, '/v1/merchants', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'idempotency-key': 'big' },
      body: { merchantName: 'x'.repeat(4000), merchantEmail: 'a@b.co' },
    });
    expect([result.status, expectErrorBody(result).code]).toEqual([413, 'invalid_params']);
  });
});

describe('rate limiting', () => {
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' } });
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  it('answers 429 rate_limited with Retry-After once a key exceeds its limit, per key', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let attempt = 0; attempt < 4; attempt++) {
      last = await call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey } });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(expectErrorBody(last!).code).toBe('rate_limited');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await newPartner(server.db, 'Unthrottled');
    expect((await call(server, '/v1/merchants', { headers: { 'api-key': other.apiKey } })).status).toBe(200);
  });

  it('tells each caller where it stands, and names the API version on the refusal', async () => {
    const caller = await newPartner(server.db, 'Counted');
    const seen = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      const response = await call(server, '/v1/merchants', { headers: { 'api-key': caller.apiKey } });
      seen.push([
        response.status,
        response.headers.get('x-ratelimit-limit'),
        response.headers.get('x-ratelimit-remaining'),
        response.headers.get('pay-version'),
      ]);
      expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    }
    expect(seen).toEqual([
      [200, '3', '2', '2026-02-18'],
      [200, '3', '1', '2026-02-18'],
      [200, '3', '0', '2026-02-18'],
      [429, '3', '0', '2026-02-18'],
    ]);
  });

  it('counts requests with unknown keys per address, so guessing keys is limited too', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      const response = await call(server, '/v1/merchants', { headers: { 'api-key': `sk_guess_${attempt}` } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    const caller = await newPartner(server.db, 'Same address, own key');
    expect((await call(server, '/v1/merchants', { headers: { 'api-key': caller.apiKey } })).status).toBe(200);
  });

  it('never limits health checks', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) statuses.push((await call(server, '/healthz')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  });
});

describe('rate limits of a public App-Id', () => {
  let server: TestServer;
  let appHeaders: (clientId: string, address: string) => Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer({
      env: { RATE_LIMIT_MAX: '3', APP_RATE_LIMIT_MAX: '7', RATE_LIMIT_WINDOW_MS: '60000', TRUST_PROXY: 'true' },
    });
    const partner = await newPartner(server.db);
    const app = await createApp(server.db, partner.partnerId, 'Public wallet');
    appHeaders = (clientId, address) => ({ 'app-id': app.appId, 'client-id': clientId, 'x-forwarded-for': address });
  });
  afterAll(() => server.close());

  const statusOf = async (headers: Record<string, string>) =>
    (await call(server, '/v1/gateway/payment/pay_01HZZZZZZZZZZZZZZZZZZZZZZZ', { headers })).status;

  it('counts per address too, so a fresh Client-Id per request does not get around the limit', async () => {
    const statuses = [];
    for (let attempt = 0; attempt < 5; attempt++)
      statuses.push(await statusOf(appHeaders(`fresh-${attempt}`, '203.0.113.1')));
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
    // Another address with its own client is counted on its own.
    expect(await statusOf(appHeaders('other-client', '203.0.113.2'))).toBe(404);
  });

  it('counts the App-Id as a whole, whatever the addresses and clients', async () => {
    const statuses = [];
    // 6 requests were counted for the app above, refused ones too; one more reaches its total of 7.
    for (let attempt = 0; attempt < 5; attempt++)
      statuses.push(await statusOf(appHeaders(`spread-${attempt}`, `198.51.100.${attempt + 1}`)));
    expect(statuses).toEqual([404, 429, 429, 429, 429]);
    const refused = await call(server, '/v1/gateway/payment/pay_01HZZZZZZZZZZZZZZZZZZZZZZZ', {
      headers: appHeaders('late', '198.51.100.200'),
    });
    expect([refused.status, expectErrorBody(refused).code, refused.headers.get('x-ratelimit-limit')]).toEqual([
      429,
      'rate_limited',
      '7',
    ]);
  });
});

describe('rate limits of the gateway calls that read chains, per payment', () => {
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    server = await startTestServer({ env: { PAYMENT_RATE_LIMIT_MAX: '2', TRUST_PROXY: 'true' } });
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  const options = (paymentId: string, address: string) =>
    call(server, `/v1/gateway/payment/${paymentId}/options`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'x-forwarded-for': address },
      body: { accounts: ['eip155:8453:0x1111111111111111111111111111111111111111'] },
    });

  it('counts options, fetch and confirm of one payment together, from every caller, and no other route', async () => {
    const paymentId = 'pay_01HZZZZZZZZZZZZZZZZZZZZZZZ';
    const first = await options(paymentId, '203.0.113.10');
    const second = await call(server, `/v1/gateway/payment/${paymentId}/fetch`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'x-forwarded-for': '203.0.113.11' },
      body: { optionId: 'opt_x', data: 'x' },
    });
    const third = await options(paymentId, '203.0.113.12');
    expect([first.status, second.status, third.status]).toEqual([404, 404, 429]);
    expect(expectErrorBody(third).code).toBe('rate_limited');
    expect((await options('pay_01HYYYYYYYYYYYYYYYYYYYYYYY', '203.0.113.13')).status).toBe(404);
    const display = await call(server, `/v1/gateway/payment/${paymentId}`, { headers: { 'api-key': partner.apiKey } });
    expect(display.status).toBe(404);
  });
});
