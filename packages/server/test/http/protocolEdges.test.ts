import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDefaultedParametersOptional } from '../../src/http/openApi.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

/** Sends `request` as raw bytes (what fetch refuses to send) and returns the raw response. */
function sendRaw(server: TestServer, request: string): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    let response = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      response += chunk;
    });
    socket.on('close', () => resolve(response));
    socket.on('error', reject);
  });
}

function parseRaw(response: string): { status: number; headers: Record<string, string>; body: any } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('what Fastify and Node refuse before a route runs, answered with the error body', () => {
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  it('answers a path parameter over 100 characters with 414 invalid_params and the error body', async () => {
    const result = await call(server, `/v1/merchants/${'m'.repeat(101)}`, { headers: { 'api-key': partner.apiKey } });
    expect([result.status, expectErrorBody(result).code]).toEqual([414, 'invalid_params']);
    expect(expectErrorBody(result).message).toContain('100 characters');
    expect(result.headers.get('pay-version')).toBe('2026-02-18');
    expect(result.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const atTheLimit = await call(server, `/v1/merchants/${'m'.repeat(100)}`, {
      headers: { 'api-key': partner.apiKey },
    });
    // At the limit the route itself answers, with its own validation of the id.
    expect([atTheLimit.status, expectErrorBody(atTheLimit).code]).toEqual([400, 'params_validation']);
  });

  it('answers a URL that cannot be decoded with 400 invalid_params and the error body', async () => {
    const result = await call(server, '/v1/merchants/%E0%A4%A', { headers: { 'api-key': partner.apiKey } });
    expect([result.status, expectErrorBody(result).code]).toEqual([400, 'invalid_params']);
    expect(expectErrorBody(result).message).toBe('The URL is not valid.');
  });

  it('answers a control character in a header value with 400 invalid_params, a version, and closes', async () => {
    const raw = await sendRaw(
      server,
      `GET /v1/merchants HTTP/1.1\r\nHost: x\r\nApi-Key: ${partner.apiKey}\r\nX-Note: a\u0001b\r\n\r\n`,
    );
    const response = parseRaw(raw);
    expect([response.status, response.body.code]).toEqual([400, 'invalid_params']);
    expect(response.body.message).toContain('control character');
    expect(response.headers['pay-version']).toBe('2026-02-18');
    expect(response.headers.connection).toBe('close');
  });

  it('answers headers over the size limit with 431 invalid_params', async () => {
    const raw = await sendRaw(server, `GET /v1/merchants HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const response = parseRaw(raw);
    expect([response.status, response.body.code]).toEqual([431, 'invalid_params']);
  });

  it('answers a method a known path does not take with 405 and the methods it takes in Allow', async () => {
    const merchants = await call(server, '/v1/merchants', { method: 'PUT', headers: { 'api-key': partner.apiKey } });
    expect([merchants.status, expectErrorBody(merchants).code]).toEqual([405, 'method_not_allowed']);
    expect(merchants.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    const payment = await call(server, '/v1/payments/pay_anything/cancel', { method: 'GET' });
    expect([payment.status, payment.headers.get('allow')]).toEqual([405, 'POST']);
    expect(payment.headers.get('pay-version')).toBe('2026-02-18');
    const unknown = await call(server, '/v1/nowhere/at/all', { method: 'PUT' });
    expect([unknown.status, expectErrorBody(unknown).code, unknown.headers.get('allow')]).toEqual([
      404,
      'not_found',
      null,
    ]);
  });
});

describe('slow clients', () => {
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    server = await startTestServer({ env: { REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '1000' } });
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  it('cuts off a body sent a byte at a time at the request timeout, with 408 and the error body', async () => {
    const { hostname, port } = new URL(server.url);
    let sent = 0;
    const response = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => {
        socket.write('POST /v1/merchants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n');
        socket.write(`Api-Key: ${partner.apiKey}\r\nIdempotency-Key: slow\r\nContent-Length: 100\r\n\r\n`);
        const drip = setInterval(() => {
          if (sent >= 100 || socket.destroyed) return clearInterval(drip);
          socket.write(' ');
          sent += 1;
        }, 100);
      });
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        answer += chunk;
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
    const parsed = parseRaw(response);
    expect([parsed.status, parsed.body.code]).toEqual([408, 'invalid_params']);
    // Closed long before the whole body (10 s at this pace) could arrive.
    expect(sent).toBeLessThan(60);
  });
});

describe('headers a client of the real API sends', () => {
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  it('refuses a header value outside ASCII with 400 header_not_ascii naming the header, before it is read', async () => {
    // Bytes as a client sends them: é in UTF-8, which Node would read as two Latin-1 characters.
    const request = [
      'GET /v1/merchants HTTP/1.1',
      'Host: localhost',
      `Api-Key: ${partner.apiKey}`,
      'Merchant-Id: mrch_caf\u00e9',
      'Connection: close',
      '',
      '',
    ].join('\r\n');
    const answer = parseRaw(await sendRaw(server, request));
    expect([answer.status, answer.body.code, answer.body.details]).toEqual([
      400,
      'header_not_ascii',
      { header: 'merchant-id' },
    ]);
    expect(answer.headers['wcp-version']).toBe('2026-02-18');
    const plain = await call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey } });
    expect(plain.status).toBe(200);
  });

  it('refuses an HTTP/1.1 request without Host with the error body, not an empty 400', async () => {
    const request = ['GET /v1/merchants HTTP/1.1', `Api-Key: ${partner.apiKey}`, 'Connection: close', '', ''].join(
      '\r\n',
    );
    const answer = parseRaw(await sendRaw(server, request));
    expect([answer.status, answer.body.code, answer.body.message]).toEqual([
      400,
      'invalid_params',
      'An HTTP/1.1 request must send a Host header.',
    ]);
    // HTTP/1.0 has no Host header to send.
    const older = parseRaw(await sendRaw(server, ['GET /healthz HTTP/1.0', '', ''].join('\r\n')));
    expect(older.status).toBe(200);
  });

  it('treats an empty Pay-Version or WCP-Version as not sent', async () => {
    for (const header of ['pay-version', 'wcp-version']) {
      const result = await call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey, [header]: '' } });
      expect([header, result.status, result.headers.get('pay-version')]).toEqual([header, 200, '2026-02-18']);
    }
    const both = await call(server, '/v1/merchants', {
      headers: { 'api-key': partner.apiKey, 'pay-version': '', 'wcp-version': '2026-02-19.preview' },
    });
    expect([both.status, both.headers.get('pay-version')]).toEqual([200, '2026-02-19.preview']);
  });

  it('accepts Sdk-Name, Sdk-Version and Sdk-Platform on any route and counts requests by name and platform', async () => {
    const sdk = { 'sdk-name': 'pay-kotlin', 'sdk-version': '1.4.2', 'sdk-platform': 'android' };
    const list = await call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey, ...sdk } });
    const unauthenticated = await call(server, '/v1/merchants', { headers: sdk });
    const odd = await call(server, '/v1/merchants', {
      headers: { 'api-key': partner.apiKey, 'sdk-name': 'x{"}\\', 'sdk-platform': '' },
    });
    expect([list.status, unauthenticated.status, odd.status]).toEqual([200, 401, 200]);
    const metrics = (await call(server, '/metrics')).text;
    expect(metrics).toContain('paygate_sdk_requests_total{sdk_name="pay-kotlin",sdk_platform="android"} 2');
    expect(metrics).toContain('paygate_sdk_requests_total{sdk_name="invalid",sdk_platform="none"} 1');
    expect(metrics).not.toContain('1.4.2');
  });

  it('keeps the SDK series bounded whatever names callers invent', async () => {
    for (let index = 0; index < 120; index++) {
      await call(server, '/healthz', { headers: { 'sdk-name': `invented-${index}`, 'sdk-platform': 'web' } });
    }
    const series = (await call(server, '/metrics')).text
      .split('\n')
      .filter((line) => line.startsWith('paygate_sdk_requests_total{'));
    expect(series.length).toBeLessThanOrEqual(101);
    expect(series.some((line) => line.includes('sdk_name="other",sdk_platform="other"'))).toBe(true);
  });
});

describe('the OpenAPI document', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('lists query parameters that have defaults as optional, and Idempotency-Key as required where it is', async () => {
    const document = (await call(server, '/openapi.json')).body;
    const parameter = (path: string, method: string, name: string) =>
      document.paths[path][method].parameters.find((entry: { name: string }) => entry.name === name);
    expect(parameter('/v1/merchants', 'get', 'limit')).toMatchObject({ in: 'query', required: false });
    expect(parameter('/v1/merchants/payments', 'get', 'sortBy')).toMatchObject({ required: false });
    expect(parameter('/v1/merchants', 'post', 'idempotency-key')).toMatchObject({ in: 'header', required: true });
    expect(parameter('/v1/merchants/{merchantId}/settlements/crypto', 'post', 'idempotency-key')).toMatchObject({
      required: true,
    });
    expect(parameter('/v1/payments', 'post', 'idempotency-key')).toMatchObject({ required: false });
  });

  it('still answers missing_idempotency_key where the key is required', async () => {
    const partner = await newPartner(server.db);
    const result = await call(server, '/v1/merchants', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { merchantName: 'Keyless', merchantEmail: 'a@b.co' },
    });
    expect([result.status, expectErrorBody(result).code]).toEqual([400, 'missing_idempotency_key']);
  });
});

describe('withDefaultedParametersOptional', () => {
  it('drops from required exactly the properties that have a default, also inside allOf', () => {
    const schema = {
      type: 'object',
      properties: { limit: { default: 20 }, cursor: {}, sortBy: { default: 'date' } },
      required: ['limit', 'cursor', 'sortBy'],
      allOf: [{ properties: { page: { default: 1 }, q: {} }, required: ['page', 'q'] }],
    };
    expect(withDefaultedParametersOptional(schema)).toEqual({
      ...schema,
      required: ['cursor'],
      allOf: [{ properties: { page: { default: 1 }, q: {} }, required: ['q'] }],
    });
    expect(withDefaultedParametersOptional({ properties: { a: {} } })).toEqual({ properties: { a: {} } });
  });
});
