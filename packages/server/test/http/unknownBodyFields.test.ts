import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_ACCOUNT, BASE_ACCOUNT_2, BASE_USDC, createMerchant } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

/** Every object schema under `schema`, with the path that leads to it. */
function objectSchemas(schema: unknown, path = ''): { path: string; schema: Record<string, unknown> }[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const entries = Object.entries(schema).flatMap(([key, value]) => objectSchemas(value, `${path}/${key}`));
  return 'properties' in schema ? [{ path, schema: schema as Record<string, unknown> }, ...entries] : entries;
}

describe('fields of a JSON body the service does not know', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(server, path, { method, headers: { 'api-key': partner.apiKey, ...headers }, body });

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server.close());

  it('are accepted and ignored, at any depth, on every route that takes a body', async () => {
    const merchant = await send(
      'POST',
      '/v1/merchants',
      { merchantName: 'Extra Shop', merchantEmail: 'owner@extra-shop.com', colour: 'red', owner: { age: 3 } },
      { 'idempotency-key': randomUUID() },
    );
    expect(merchant.status, merchant.text).toBe(201);
    expect(merchant.body.merchant).toMatchObject({ name: 'Extra Shop', email: 'owner@extra-shop.com' });
    expect(merchant.text).not.toMatch(/colour|owner"/);

    const renamed = await send('PATCH', `/v1/merchants/${merchantId}`, { merchantName: 'Renamed', nickname: 'R' });
    expect([renamed.status, renamed.body.merchant?.name], renamed.text).toEqual([200, 'Renamed']);

    const payment = await send(
      'POST',
      '/v1/payments',
      {
        amount: { unit: 'iso4217/USD', value: '1000', display: { decimals: 2 } },
        referenceId: `order-${randomUUID()}`,
        metadata: { orderId: 7 },
      },
      { 'merchant-id': merchantId },
    );
    expect(payment.status, payment.text).toBe(201);
    const stored = await server.db
      .selectFrom('payments')
      .select(['fiat_currency', 'fiat_value'])
      .where('id', '=', payment.body.paymentId)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ fiat_currency: 'USD', fiat_value: '1000' });

    const destinations = await send(
      'POST',
      `/v1/merchants/${merchantId}/settlements/crypto`,
      { settlements: [{ asset: BASE_USDC, destination: BASE_ACCOUNT, label: 'main' }], note: 'x' },
      { 'idempotency-key': randomUUID() },
    );
    expect(destinations.status, destinations.text).toBe(201);
    const changed = await send(
      'PUT',
      `/v1/merchants/${merchantId}/settlements/crypto/${destinations.body.settlements[0].id}`,
      { destination: BASE_ACCOUNT_2, label: 'backup' },
    );
    expect([changed.status, changed.body.destination], changed.text).toEqual([200, BASE_ACCOUNT_2]);
  });

  it('do not count as a field: a PATCH with nothing else still changes nothing and is refused', async () => {
    const result = await send('PATCH', `/v1/merchants/${merchantId}`, { nickname: 'R' });
    expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
  });

  it('leave known fields of the wrong type refused with 400 params_validation naming them', async () => {
    const refusals: [string, string, unknown, string, Record<string, string>][] = [
      ['POST', '/v1/merchants', { merchantName: 42, merchantEmail: 'a@b.co', colour: 'red' }, 'merchantName', {}],
      ['PATCH', `/v1/merchants/${merchantId}`, { merchantEmail: ['a@b.co'], nickname: 'R' }, 'merchantEmail', {}],
      [
        'POST',
        '/v1/payments',
        { amount: { unit: 'iso4217/USD', value: 1000 }, referenceId: 'typed', metadata: {} },
        'amount.value',
        { 'merchant-id': merchantId },
      ],
      [
        'POST',
        `/v1/merchants/${merchantId}/settlements/crypto`,
        { settlements: BASE_USDC, note: 'x' },
        'settlements',
        {},
      ],
    ];
    for (const [method, path, body, field, headers] of refusals) {
      const result = await send(method, path, body, { 'idempotency-key': randomUUID(), ...headers });
      expect(result.status, `${method} ${path}: ${result.text}`).toBe(400);
      const error = expectErrorBody(result);
      expect(error.code).toBe('params_validation');
      expect(error.issues?.map((issue) => issue.field)).toContain(field);
    }
  });

  it('do not change the idempotency fingerprint: a retry that adds or drops one replays the first answer', async () => {
    const key = randomUUID();
    const body = { merchantName: 'Retry Shop', merchantEmail: 'owner@retry-shop.com' };
    const first = await send('POST', '/v1/merchants', body, { 'idempotency-key': key });
    expect(first.status, first.text).toBe(201);
    const retried = await send('POST', '/v1/merchants', { ...body, sdkVersion: '1.2.3' }, { 'idempotency-key': key });
    expect([retried.status, retried.text, retried.headers.get('idempotent-replayed')]).toEqual([
      201,
      first.text,
      'true',
    ]);
    const changed = await send('POST', '/v1/merchants', { ...body, merchantName: 'Other' }, { 'idempotency-key': key });
    expect([changed.status, expectErrorBody(changed).code]).toEqual([409, 'idempotency_conflict']);
  });

  it('are documented: no request body of the OpenAPI document is closed, and nullable fields say so', async () => {
    const document = (await call(server, '/openapi.json')).body;
    const bodies = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation?.requestBody)
        .map(([method, operation]) => ({
          route: `${method.toUpperCase()} ${path}`,
          schema: operation.requestBody.content['application/json'].schema,
        })),
    );
    expect(bodies.map((body) => body.route)).toEqual(
      expect.arrayContaining(['POST /v1/merchants', 'POST /v1/gateway/payment/{id}/confirm']),
    );
    for (const { route, schema } of bodies) {
      for (const object of objectSchemas(schema)) {
        expect(object.schema.additionalProperties, `${route} ${object.path}`).not.toBe(false);
      }
    }
    const gatewayBody = (path: string) =>
      bodies.find((body) => body.route === `POST /v1/gateway/payment/{id}/${path}`)?.schema;
    expect(gatewayBody('options').properties.refresh.type).toEqual(['array', 'null']);
    expect(gatewayBody('confirm').properties.collectedData.type).toEqual(['object', 'null']);
  });

  it('are not query parameters: an unknown query parameter is still refused', async () => {
    const result = await call(server, '/v1/merchants?colour=red', { headers: { 'api-key': partner.apiKey } });
    expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
  });
});
