import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_USDC, createMerchant } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '%00', '../', '\u0000', 'mrch_', BASE_USDC),
);

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }).filter((value) => /^[\x20-\x7e]*$/.test(value)),
  fc.constantFrom('2026-02-18', '2026-02-19.preview', '9999-99-99', 'Bearer x', 'application/json', 'text/plain'),
);
const headerName = fc.constantFrom(
  'pay-version',
  'wcp-version',
  'idempotency-key',
  'app-id',
  'client-id',
  'authorization',
  'content-type',
  'merchant-id',
);

/** Bodies shaped like the real ones with any field swapped for arbitrary JSON, or arbitrary JSON outright. */
const merchantBody = fc.oneof(
  jsonValue,
  fc.record(
    {
      merchantName: fc.oneof(text, jsonValue),
      merchantEmail: fc.oneof(text, jsonValue),
      iconUrl: fc.oneof(text, jsonValue),
    },
    { requiredKeys: [] },
  ),
);
const settlementsBody = fc.oneof(
  jsonValue,
  fc.record({
    settlements: fc.oneof(
      jsonValue,
      fc.array(
        fc.record({ asset: fc.oneof(text, jsonValue), destination: fc.oneof(text, jsonValue) }, { requiredKeys: [] }),
        { maxLength: 3 },
      ),
    ),
  }),
);

const refundBody = fc.oneof(
  jsonValue,
  fc.record(
    {
      paymentId: fc.oneof(text, jsonValue),
      amount: fc.oneof(jsonValue, fc.record({ unit: fc.oneof(text, jsonValue), value: fc.oneof(text, jsonValue) })),
      send: fc.oneof(fc.boolean(), jsonValue),
    },
    { requiredKeys: [] },
  ),
);

describe('fuzzing every merchant, list and refund route: no 5xx, every error is the error body', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let settlementId: string;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
    const created = await call(server, `/v1/merchants/${merchantId}/settlements/crypto`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'idempotency-key': 'fuzz-setup' },
      body: {
        settlements: [{ asset: BASE_USDC, destination: 'eip155:8453:0x1111111111111111111111111111111111111111' }],
      },
    });
    settlementId = created.body.settlements[0].id;
  });
  afterAll(() => server.close());

  const routes = () => [
    { method: 'POST', path: '/v1/merchants', body: merchantBody },
    { method: 'GET', path: '/v1/merchants', body: fc.constant(undefined) },
    { method: 'GET', path: `/v1/merchants/${merchantId}`, body: fc.constant(undefined) },
    { method: 'PATCH', path: `/v1/merchants/${merchantId}`, body: merchantBody },
    { method: 'GET', path: `/v1/merchants/${merchantId}/settlements`, body: fc.constant(undefined) },
    { method: 'POST', path: `/v1/merchants/${merchantId}/settlements/crypto`, body: settlementsBody },
    {
      method: 'PUT',
      path: `/v1/merchants/${merchantId}/settlements/crypto/${settlementId}`,
      body: fc.oneof(jsonValue, fc.record({ destination: fc.oneof(text, jsonValue) })),
    },
    {
      method: 'DELETE',
      path: `/v1/merchants/${merchantId}/settlements/crypto/not-${settlementId}`,
      body: fc.constant(undefined),
    },
    { method: 'DELETE', path: `/v1/merchants/not-${merchantId}`, body: fc.constant(undefined) },
    { method: 'GET', path: '/v1/payments', body: fc.constant(undefined) },
    { method: 'GET', path: `/v1/merchants/${merchantId}/payments`, body: fc.constant(undefined) },
    { method: 'POST', path: '/v1/refunds', body: refundBody },
    { method: 'GET', path: '/v1/refunds/rfnd_unknown', body: fc.constant(undefined) },
  ];

  it('survives arbitrary bodies, query strings, path segments and headers', async () => {
    for (const route of routes()) {
      await fc.assert(
        fc.asyncProperty(
          route.body,
          fc.dictionary(headerName, headerValue, { maxKeys: 4 }),
          fc.array(
            fc.tuple(
              fc.constantFrom('limit', 'cursor', 'status', 'search', 'merchantId', 'start_ts', 'sort_by', 'x'),
              fc.string({ maxLength: 20 }),
            ),
            { maxLength: 3 },
          ),
          fc.boolean(),
          fc.option(fc.string({ maxLength: 12 }).map(encodeURIComponent), { nil: undefined }),
          async (body, headers, query, authenticated, pathSuffix) => {
            const search = new URLSearchParams(query).toString();
            const path = `${route.path}${pathSuffix ? `/${pathSuffix}` : ''}${search ? `?${search}` : ''}`;
            const result = await call(server, path, {
              method: route.method,
              headers: { ...headers, ...(authenticated ? { 'api-key': partner.apiKey } : {}) },
              ...(body === undefined
                ? {}
                : {
                    rawBody: JSON.stringify(body),
                    headers: {
                      'content-type': headers['content-type'] ?? 'application/json',
                      ...headers,
                      ...(authenticated ? { 'api-key': partner.apiKey } : {}),
                    },
                  }),
            });
            expect(result.status, `${route.method} ${path}: ${result.text}`).toBeLessThan(500);
            if (result.status >= 400) expectErrorBody(result);
            expect(result.headers.get('pay-version')).toBeTruthy();
          },
        ),
        { numRuns: 60 },
      );
    }
  });

  it('left the fixture merchant readable', async () => {
    const result = await call(server, `/v1/merchants/${merchantId}`, { headers: { 'api-key': partner.apiKey } });
    expect(result.status).toBe(200);
  });
});
