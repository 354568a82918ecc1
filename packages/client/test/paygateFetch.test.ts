import { afterEach, describe, expect, it } from 'vitest';
import {
  dropConnection,
  json,
  type ScriptedServer,
  type Step,
  startScriptedServer,
  unusedBaseUrl,
} from '../../wallet/test/support/scriptedServer.ts';
import { createPaygateClient, PaygateNetworkError, type RetryOptions } from '../src/index.ts';

const FAST: RetryOptions = { retries: 3, initialDelayMs: 10, maxDelayMs: 40 };
const MERCHANT = { merchantName: 'Corner Shop', merchantEmail: 'owner@corner-shop.com' };
const CREATED = json(201, { merchant: { id: 'mer_1' } });
const ERROR_BODY = { code: 'internal_error', message: 'Something went wrong' };

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function clientFor(steps: Step[], retry: RetryOptions = FAST) {
  const server = await startScriptedServer(steps);
  servers.push(server);
  return { client: createPaygateClient({ baseUrl: server.baseUrl, apiKey: 'sk_test', retry }), server };
}
const keysSent = (scripted: ScriptedServer) => scripted.requests.map((request) => request.headers['idempotency-key']);

describe('idempotency keys', () => {
  it('sends a new key with each create and the same key with every retry of it', async () => {
    const { client, server } = await clientFor([json(503, ERROR_BODY), dropConnection(), CREATED, CREATED]);
    const first = await client.POST('/v1/merchants', { body: MERCHANT });
    expect(first.response.status).toBe(201);
    expect(first.data).toEqual({ merchant: { id: 'mer_1' } });
    const second = await client.POST('/v1/merchants', { body: MERCHANT });
    expect(second.response.status).toBe(201);
    const [a, b, c, d] = keysSent(server);
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect([b, c]).toEqual([a, a]);
    expect(d).toMatch(/^[0-9a-f-]{36}$/);
    expect(d).not.toBe(a);
    // Every attempt carries the same body and credentials.
    expect(new Set(server.requests.slice(0, 3).map((request) => request.body)).size).toBe(1);
    expect(JSON.parse(server.requests[0]!.body)).toEqual(MERCHANT);
    expect(server.requests.every((request) => request.headers['api-key'] === 'sk_test')).toBe(true);
  });

  it("keeps the caller's own key across retries", async () => {
    const { client, server } = await clientFor([json(500, ERROR_BODY), CREATED]);
    await client.POST('/v1/merchants', {
      params: { header: { 'idempotency-key': 'order-42-merchant' } },
      body: MERCHANT,
    });
    expect(keysSent(server)).toEqual(['order-42-merchant', 'order-42-merchant']);
  });

  it('sends no key where the service takes none, and never sends such a request twice after a failure', async () => {
    const { client, server } = await clientFor([json(500, ERROR_BODY)]);
    const { error, response } = await client.POST('/v1/webhooks', {
      body: { url: 'https://hooks.example.com/paygate', events: ['payment.succeeded'] },
    });
    expect(response.status).toBe(500);
    expect(error).toEqual(ERROR_BODY);
    expect(keysSent(server)).toEqual([undefined]);

    const dropped = await clientFor([dropConnection()]);
    await expect(
      dropped.client.POST('/v1/events/{id}/redeliver', { params: { path: { id: 'evt_1' } }, body: {} }),
    ).rejects.toThrow();
    expect(dropped.server.requests).toHaveLength(1);
  });
});

describe('retries', () => {
  it('retries reads on 5xx and on no answer, with growing waits', async () => {
    const { client, server } = await clientFor(
      [json(502, ERROR_BODY), dropConnection(), json(503, ERROR_BODY), json(200, { data: [] })],
      { retries: 3, initialDelayMs: 40, maxDelayMs: 1000 },
    );
    const { data, response } = await client.GET('/v1/merchants');
    expect(response.status).toBe(200);
    expect(data).toEqual({ data: [] });
    const gaps = server.requests.slice(1).map((request, i) => request.at - server.requests[i]!.at);
    // 40, 80, 160 ms, each with up to 50 % jitter on top.
    expect(gaps[0]).toBeGreaterThanOrEqual(38);
    expect(gaps[1]).toBeGreaterThanOrEqual(78);
    expect(gaps[2]).toBeGreaterThanOrEqual(158);
  });

  it('waits for the Retry-After of a 429, whatever the request, and answers a 429 that does not say when at once', async () => {
    const { client, server } = await clientFor([
      json(429, { code: 'rate_limited', message: 'Slow down' }, { 'Retry-After': '1' }),
      json(201, { id: 'whk_1' }),
      json(429, { code: 'rate_limited', message: 'Slow down' }),
    ]);
    const created = await client.POST('/v1/webhooks', {
      body: { url: 'https://hooks.example.com/paygate', events: ['payment.succeeded'] },
    });
    expect(created.response.status).toBe(201);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(990);
    const limited = await client.GET('/v1/merchants');
    expect(limited.response.status).toBe(429);
    expect(limited.error).toMatchObject({ code: 'rate_limited' });
    expect(server.requests).toHaveLength(3);
  });

  it('answers a 429 whose Retry-After is longer than it may wait at once', async () => {
    const { client, server } = await clientFor(
      [json(429, { code: 'rate_limited', message: 'Slow down' }, { 'Retry-After': '120' })],
      { ...FAST, maxRetryAfterMs: 5_000 },
    );
    const { response } = await client.GET('/v1/merchants');
    expect(response.status).toBe(429);
    expect(server.requests).toHaveLength(1);
  });

  it('never retries another 4xx', async () => {
    for (const status of [400, 401, 403, 404, 409, 422]) {
      const { client, server } = await clientFor([json(status, { code: 'x', message: 'no' })]);
      const created = await client.POST('/v1/merchants', { body: MERCHANT });
      const read = await client.GET('/v1/merchants');
      expect([created.response.status, read.response.status]).toEqual([status, 418]);
      expect(server.requests).toHaveLength(2);
    }
  });

  it('gives the last 5xx answer once its retries are spent, and PaygateNetworkError when nothing answers', async () => {
    const { client, server } = await clientFor([json(500, ERROR_BODY), json(502, ERROR_BODY)], {
      ...FAST,
      retries: 1,
    });
    const { response } = await client.GET('/v1/merchants');
    expect(response.status).toBe(502);
    expect(server.requests).toHaveLength(2);

    const nowhere = createPaygateClient({ baseUrl: await unusedBaseUrl(), apiKey: 'sk_test', retry: FAST });
    const failure = await nowhere.POST('/v1/merchants', { body: MERCHANT }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PaygateNetworkError);
    expect(failure).toMatchObject({ attempts: 4, cause: expect.any(Error) });
  });

  it("stops waiting at once when the caller's signal aborts", async () => {
    const { client, server } = await clientFor([json(503, ERROR_BODY)], {
      retries: 3,
      initialDelayMs: 10_000,
      maxDelayMs: 10_000,
    });
    const started = performance.now();
    const failure = await client
      .GET('/v1/merchants', { signal: AbortSignal.timeout(200) })
      .catch((error: unknown) => error);
    expect((failure as Error).name).toBe('TimeoutError');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
  });
});
