import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient, GatewayError, GatewayNetworkError } from '../src/gatewayClient.ts';
import type { GatewayClientOptions } from '../src/gatewayClient.ts';
import {
  dropConnection,
  dropMidBody,
  json,
  startScriptedServer,
  text,
  unusedBaseUrl,
  type ScriptedServer,
  type Step,
} from './support/scriptedServer.ts';

const PAYMENT_ID = 'pay_01JABCDEFGHJKMNPQRSTVWXYZ0';
const STATUS_BODY = { status: 'requires_action', isFinal: false, pollInMs: 1000, info: null };
const EVM_ACCOUNT = 'eip155:8453:0x1111111111111111111111111111111111111111';
const SOLANA_CHAIN = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(...steps: Step[]): Promise<ScriptedServer> {
  server = await startScriptedServer(steps);
  return server;
}

function clientFor(target: ScriptedServer | string, options: Partial<GatewayClientOptions> = {}): GatewayClient {
  return new GatewayClient({
    baseUrl: typeof target === 'string' ? target : target.baseUrl,
    auth: { apiKey: 'test-key' },
    retry: { initialDelayMs: 10 },
    ...options,
  });
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

function gaps(s: ScriptedServer): number[] {
  return s.requests.slice(1).map((request, i) => request.at - (s.requests[i]?.at ?? 0));
}

describe('GatewayClient retries', () => {
  it('succeeds after two 5xx responses, retrying twice', async () => {
    const s = await serve(
      json(500, { code: 'internal_error', message: 'boom' }),
      json(502, { code: 'bad_gateway', message: 'upstream' }),
      json(200, STATUS_BODY),
    );
    await expect(clientFor(s).getStatus(PAYMENT_ID)).resolves.toEqual(STATUS_BODY);
    expect(s.requests).toHaveLength(3);
  });

  it('backs off with growing delays from 100 ms', async () => {
    const error = json(503, { code: 'internal_error', message: 'busy' });
    const s = await serve(error, error, error, json(200, STATUS_BODY));
    await clientFor(s, { retry: {} }).getStatus(PAYMENT_ID);
    expect(s.requests).toHaveLength(4);
    const [first, second, third] = gaps(s) as [number, number, number];
    expect(first).toBeGreaterThanOrEqual(95);
    expect(second).toBeGreaterThan(first);
    expect(third).toBeGreaterThan(second);
  });

  it('throws the last 5xx as a GatewayError once the retries are spent', async () => {
    const error = json(500, { code: 'internal_error', message: 'still broken', details: { requestId: 'r1' } });
    const s = await serve(error, error, error, error, json(200, STATUS_BODY));
    const thrown = await caught(clientFor(s).getStatus(PAYMENT_ID));
    expect(thrown).toBeInstanceOf(GatewayError);
    expect(thrown).toMatchObject({ status: 500, code: 'internal_error', details: { requestId: 'r1' } });
    expect(s.requests).toHaveLength(4);
  });

  it('honours a smaller retry budget', async () => {
    const error = json(500, { code: 'internal_error', message: 'x' });
    const s = await serve(error, error, json(200, STATUS_BODY));
    await expect(clientFor(s, { retry: { retries: 1, initialDelayMs: 10 } }).getStatus(PAYMENT_ID)).rejects.toThrow(
      GatewayError,
    );
    expect(s.requests).toHaveLength(2);
  });

  it('never retries a 4xx and exposes code, message, details and issues', async () => {
    const s = await serve(
      json(400, {
        code: 'params_validation',
        message: 'Invalid request',
        details: { hint: 'check accounts' },
        issues: [{ field: 'accounts.0', message: 'not a CAIP-10 account' }, { field: 42 }],
      }),
      json(200, { options: [] }),
    );
    const thrown = await caught(clientFor(s).getOptions(PAYMENT_ID, { accounts: ['nope'] }));
    expect(thrown).toBeInstanceOf(GatewayError);
    expect(thrown).toMatchObject({
      status: 400,
      code: 'params_validation',
      message: 'Invalid request',
      details: { hint: 'check accounts' },
      // The malformed issue is dropped rather than passed on with the wrong shape.
      issues: [{ field: 'accounts.0', message: 'not a CAIP-10 account' }],
    });
    expect(s.requests).toHaveLength(1);
  });

  it.each([401, 403, 404, 409, 410])('does not retry HTTP %i', async (status) => {
    const s = await serve(json(status, { code: 'some_code', message: 'no' }), json(200, STATUS_BODY));
    await expect(clientFor(s).getStatus(PAYMENT_ID)).rejects.toMatchObject({ status, code: 'some_code' });
    expect(s.requests).toHaveLength(1);
  });

  it('reports a non-JSON error body with the http_error code', async () => {
    const s = await serve(text(502, '<html>Bad Gateway</html>'));
    const thrown = await caught(clientFor(s, { retry: { retries: 0 } }).getStatus(PAYMENT_ID));
    expect(thrown).toMatchObject({ name: 'GatewayError', status: 502, code: 'http_error' });
  });

  it('retries when the server drops the connection, then succeeds', async () => {
    const s = await serve(dropConnection(), dropConnection(), json(200, STATUS_BODY));
    await expect(clientFor(s).getStatus(PAYMENT_ID)).resolves.toEqual(STATUS_BODY);
    expect(s.requests).toHaveLength(3);
  });

  it('retries when the connection drops in the middle of a 2xx body', async () => {
    const s = await serve(dropMidBody(), json(200, STATUS_BODY));
    await expect(clientFor(s).getStatus(PAYMENT_ID)).resolves.toEqual(STATUS_BODY);
    expect(s.requests).toHaveLength(2);
  });

  it('throws a GatewayNetworkError when every attempt loses the connection', async () => {
    const s = await serve(
      dropConnection(),
      dropConnection(),
      dropConnection(),
      dropConnection(),
      json(200, STATUS_BODY),
    );
    const thrown = await caught(clientFor(s).cancel(PAYMENT_ID));
    expect(thrown).toBeInstanceOf(GatewayNetworkError);
    expect((thrown as GatewayNetworkError).cause).toBeDefined();
    expect(s.requests).toHaveLength(4);
  });

  it('retries a refused connection with backoff before giving up', async () => {
    const baseUrl = await unusedBaseUrl();
    const started = performance.now();
    const thrown = await caught(clientFor(baseUrl, { retry: { initialDelayMs: 20 } }).getPayment(PAYMENT_ID));
    expect(thrown).toBeInstanceOf(GatewayNetworkError);
    // Three waits of at least 20, 40 and 80 ms happened before the last attempt.
    expect(performance.now() - started).toBeGreaterThanOrEqual(135);
  });

  it('ends a held request when its signal aborts, rejecting with the reason and never retrying', async () => {
    // The service holds the long-poll: the step never answers.
    const s = await serve(() => undefined, json(200, STATUS_BODY));
    const caller = new AbortController();
    const request = caught(clientFor(s).getStatus(PAYMENT_ID, { maxPollMs: 25_000, signal: caller.signal }));
    await expect.poll(() => s.requests.length).toBe(1);
    const reason = new Error('the page left');
    caller.abort(reason);
    expect(await request).toBe(reason);
    expect(s.requests).toHaveLength(1);
    await expect(clientFor(s).getStatus(PAYMENT_ID, { signal: caller.signal })).rejects.toBe(reason);
    expect(s.requests).toHaveLength(1);
  });

  it('waits for Retry-After on 429, then retries', async () => {
    const s = await serve(
      json(429, { code: 'rate_limited', message: 'slow down' }, { 'Retry-After': '1' }),
      json(200, STATUS_BODY),
    );
    await expect(clientFor(s).getStatus(PAYMENT_ID)).resolves.toEqual(STATUS_BODY);
    expect(s.requests).toHaveLength(2);
    expect(gaps(s)[0]).toBeGreaterThanOrEqual(950);
  });

  it('waits for Retry-After on 503 (the service cannot reach its database), then retries', async () => {
    const s = await serve(
      json(503, { code: 'service_unavailable', message: 'database restarting' }, { 'Retry-After': '1' }),
      json(200, STATUS_BODY),
    );
    await expect(clientFor(s, { retry: { initialDelayMs: 10 } }).getStatus(PAYMENT_ID)).resolves.toEqual(STATUS_BODY);
    expect(s.requests).toHaveLength(2);
    expect(gaps(s)[0]).toBeGreaterThanOrEqual(950);
  });

  it('caps a long Retry-After', async () => {
    const s = await serve(
      json(429, { code: 'rate_limited', message: 'slow down' }, { 'Retry-After': '3600' }),
      json(200, STATUS_BODY),
    );
    const client = clientFor(s, { retry: { initialDelayMs: 10, maxRetryAfterMs: 50 } });
    await expect(client.getStatus(PAYMENT_ID)).resolves.toEqual(STATUS_BODY);
    expect(gaps(s)[0]).toBeLessThan(3000);
  });

  it('counts 429 retries against the same budget and reports rate_limited at the end', async () => {
    const limited = json(429, { code: 'rate_limited', message: 'slow down' }, { 'Retry-After': '0' });
    const s = await serve(
      limited,
      json(500, { code: 'internal_error', message: 'x' }),
      limited,
      json(200, STATUS_BODY),
    );
    const thrown = await caught(clientFor(s, { retry: { retries: 2, initialDelayMs: 10 } }).getStatus(PAYMENT_ID));
    expect(thrown).toMatchObject({ name: 'GatewayError', status: 429, code: 'rate_limited', retryAfterMs: 0 });
    expect(s.requests).toHaveLength(3);
  });
});

describe('GatewayClient requests', () => {
  it('sends Api-Key, JSON content type and Pay-Version', async () => {
    const s = await serve(json(200, { options: [] }), json(200, STATUS_BODY));
    const client = clientFor(s, { apiVersion: '2026-02-18' });
    await client.getOptions(PAYMENT_ID, { accounts: [EVM_ACCOUNT] });
    await client.getStatus(PAYMENT_ID);

    const [post, get] = s.requests;
    expect(post?.headers['api-key']).toBe('test-key');
    expect(post?.headers['pay-version']).toBe('2026-02-18');
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.headers['app-id']).toBeUndefined();
    expect(get?.headers['api-key']).toBe('test-key');
    expect(get?.headers['content-type']).toBeUndefined();
  });

  it('sends App-Id and Client-Id instead of Api-Key, and no Pay-Version unless set', async () => {
    const s = await serve(json(200, STATUS_BODY));
    await clientFor(s, { auth: { appId: 'app_01JABCDEFGHJKMNPQRSTVWXYZ0', clientId: 'device-1' } }).getStatus(
      PAYMENT_ID,
    );
    const headers = s.requests[0]?.headers;
    expect(headers?.['app-id']).toBe('app_01JABCDEFGHJKMNPQRSTVWXYZ0');
    expect(headers?.['client-id']).toBe('device-1');
    expect(headers?.['api-key']).toBeUndefined();
    expect(headers?.['pay-version']).toBeUndefined();
  });

  it('posts options with accounts, refresh and the includePaymentInfo query', async () => {
    const s = await serve(
      json(200, { options: [], info: { expiresAt: 1_800_000_000 } }),
      json(200, { options: [] }),
      json(200, { options: [] }),
    );
    const client = clientFor(s);
    const response = await client.getOptions(PAYMENT_ID, {
      accounts: [EVM_ACCOUNT],
      refresh: ['opt_1'],
      includePaymentInfo: true,
    });
    await client.getOptions(PAYMENT_ID, { accounts: [EVM_ACCOUNT], includePaymentInfo: false });
    await client.getOptions(PAYMENT_ID, { accounts: [EVM_ACCOUNT] });

    expect(response.info).toEqual({ expiresAt: 1_800_000_000 });
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST /v1/gateway/payment/${PAYMENT_ID}/options?includePaymentInfo=true`,
      `POST /v1/gateway/payment/${PAYMENT_ID}/options?includePaymentInfo=false`,
      `POST /v1/gateway/payment/${PAYMENT_ID}/options`,
    ]);
    expect(JSON.parse(s.requests[0]?.body ?? '')).toEqual({ accounts: [EVM_ACCOUNT], refresh: ['opt_1'] });
    expect(JSON.parse(s.requests[2]?.body ?? '')).toEqual({ accounts: [EVM_ACCOUNT] });
  });

  it('sends confirm and status with maxPollMs, and the confirm body as given', async () => {
    const s = await serve(
      json(200, STATUS_BODY),
      json(200, STATUS_BODY),
      json(200, STATUS_BODY),
      json(200, STATUS_BODY),
    );
    const client = clientFor(s);
    const confirm = {
      optionId: 'opt_1',
      results: [{ type: 'walletRpc' as const, data: ['0xsig'] }],
      collectedData: { fields: [{ id: 'fullName', value: 'Ada Lovelace' }] },
    };
    await client.confirm(PAYMENT_ID, confirm, { maxPollMs: 25_000 });
    await client.confirm(PAYMENT_ID, confirm);
    await client.getStatus(PAYMENT_ID, { maxPollMs: 0 });
    await client.getStatus(PAYMENT_ID);

    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST /v1/gateway/payment/${PAYMENT_ID}/confirm?maxPollMs=25000`,
      `POST /v1/gateway/payment/${PAYMENT_ID}/confirm`,
      `GET /v1/gateway/payment/${PAYMENT_ID}/status?maxPollMs=0`,
      `GET /v1/gateway/payment/${PAYMENT_ID}/status`,
    ]);
    expect(JSON.parse(s.requests[0]?.body ?? '')).toEqual(confirm);
  });

  it('uses the right paths for payment, fetch and cancel', async () => {
    const payment = {
      status: 'requires_action',
      amount: {
        unit: 'iso4217/USD',
        value: '1000',
        display: { assetSymbol: 'USD', assetName: 'US Dollar', decimals: 2 },
      },
      expiresAt: 1_800_000_000,
      merchant: { name: 'Shop', iconUrl: null },
    };
    const cancelled = {
      status: 'cancelled',
      isFinal: true,
      paymentId: PAYMENT_ID,
      cancelledReason: 'cancelled_by_user',
      cancelledAt: '2026-11-25T08:00:00.000Z',
    };
    const s = await serve(json(200, payment), json(200, { actions: [] }), json(200, cancelled));
    const client = clientFor(s);
    await expect(client.getPayment(PAYMENT_ID)).resolves.toEqual(payment);
    await client.fetchActions(PAYMENT_ID, { optionId: 'opt_1', data: 'build-data' });
    await expect(client.cancel(PAYMENT_ID)).resolves.toEqual(cancelled);

    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET /v1/gateway/payment/${PAYMENT_ID}`,
      `POST /v1/gateway/payment/${PAYMENT_ID}/fetch`,
      `POST /v1/gateway/payment/${PAYMENT_ID}/cancel`,
    ]);
    expect(JSON.parse(s.requests[1]?.body ?? '')).toEqual({ optionId: 'opt_1', data: 'build-data' });
    expect(s.requests[2]?.body).toBe('');
  });

  it('keeps a path prefix of the base URL', async () => {
    const s = await serve(json(200, STATUS_BODY));
    await clientFor(`${s.baseUrl}/api/`).getStatus(PAYMENT_ID);
    expect(s.requests[0]?.url).toBe(`/api/v1/gateway/payment/${PAYMENT_ID}/status`);
  });

  it('goes through a custom fetch', async () => {
    const s = await serve(json(200, STATUS_BODY));
    const seen: string[] = [];
    const countingFetch: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    await clientFor(s, { fetch: countingFetch }).getStatus(PAYMENT_ID);
    expect(seen).toEqual([`${s.baseUrl}/v1/gateway/payment/${PAYMENT_ID}/status`]);
  });

  it('refuses ids that could reshape the path and bad maxPollMs, without a request', async () => {
    const s = await serve(json(200, STATUS_BODY));
    const client = clientFor(s);
    await expect(client.getStatus('../merchants')).rejects.toThrow(TypeError);
    await expect(client.getStatus(`${PAYMENT_ID}/../x`)).rejects.toThrow(TypeError);
    await expect(client.getStatus(PAYMENT_ID, { maxPollMs: -1 })).rejects.toThrow(TypeError);
    await expect(client.getStatus(PAYMENT_ID, { maxPollMs: 1.5 })).rejects.toThrow(TypeError);
    expect(s.requests).toHaveLength(0);
  });
});

describe('GatewayClient action normalisation', () => {
  const option = (actions: unknown[]) => ({
    id: 'opt_1',
    account: EVM_ACCOUNT,
    amount: { unit: 'caip19/eip155:8453/erc20:0xabc', value: '1000000', display: null },
    etaS: 5,
    expiresAt: null,
    actions,
    collectData: null,
  });

  it('normalises chainId to chain_id in options and keeps chain_id as is', async () => {
    const s = await serve(
      json(200, {
        options: [
          option([
            { type: 'walletRpc', data: { chainId: 'eip155:8453', method: 'eth_sendTransaction', params: '[{}]' } },
            { type: 'walletRpc', data: { chain_id: 'eip155:8453', method: 'eth_signTypedData_v4', params: '[]' } },
            { type: 'build', data: { data: 'opaque' } },
          ]),
        ],
        collectData: null,
      }),
    );
    const response = await clientFor(s).getOptions(PAYMENT_ID, { accounts: [EVM_ACCOUNT] });
    expect(response.collectData).toBeNull();
    expect(response.options[0]?.actions).toEqual([
      { type: 'walletRpc', data: { chain_id: 'eip155:8453', method: 'eth_sendTransaction', params: '[{}]' } },
      { type: 'walletRpc', data: { chain_id: 'eip155:8453', method: 'eth_signTypedData_v4', params: '[]' } },
      { type: 'build', data: { data: 'opaque' } },
    ]);
    expect(response.options[0]).toMatchObject({ id: 'opt_1', etaS: 5, expiresAt: null, collectData: null });
  });

  it('normalises chainId in fetched actions', async () => {
    const params = JSON.stringify([{ transaction: 'AQID' }]);
    const s = await serve(
      json(200, {
        actions: [{ type: 'walletRpc', data: { chainId: SOLANA_CHAIN, method: 'solana_signTransaction', params } }],
      }),
    );
    const response = await clientFor(s).fetchActions(PAYMENT_ID, { optionId: 'opt_1', data: 'opaque' });
    expect(response.actions).toEqual([
      { type: 'walletRpc', data: { chain_id: SOLANA_CHAIN, method: 'solana_signTransaction', params } },
    ]);
  });

  it.each([
    [
      'conflicting chain ids',
      {
        options: [
          option([
            {
              type: 'walletRpc',
              data: { chain_id: 'eip155:1', chainId: 'eip155:8453', method: 'personal_sign', params: '[]' },
            },
          ]),
        ],
      },
    ],
    [
      'a missing chain id',
      { options: [option([{ type: 'walletRpc', data: { method: 'personal_sign', params: '[]' } }])] },
    ],
    [
      'params that are not a JSON string',
      {
        options: [option([{ type: 'walletRpc', data: { chain_id: 'eip155:1', method: 'personal_sign', params: [] } }])],
      },
    ],
    ['an unknown action type', { options: [option([{ type: 'teleport', data: {} }])] }],
    ['no options array', { choices: [] }],
  ])('rejects options with %s as invalid_response', async (_name, body) => {
    const s = await serve(json(200, body));
    await expect(clientFor(s).getOptions(PAYMENT_ID, { accounts: [EVM_ACCOUNT] })).rejects.toMatchObject({
      name: 'GatewayError',
      status: 200,
      code: 'invalid_response',
    });
    expect(s.requests).toHaveLength(1);
  });

  it('rejects a build action returned by fetch', async () => {
    const s = await serve(json(200, { actions: [{ type: 'build', data: { data: 'again' } }] }));
    await expect(clientFor(s).fetchActions(PAYMENT_ID, { optionId: 'opt_1', data: 'x' })).rejects.toMatchObject({
      code: 'invalid_response',
    });
  });

  it('rejects a 2xx body that is not JSON', async () => {
    const s = await serve(text(200, 'ok'));
    await expect(clientFor(s).getStatus(PAYMENT_ID)).rejects.toMatchObject({ code: 'invalid_response', status: 200 });
  });
});
