import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Db } from '../../src/db/database.ts';
import { createApp } from '../../src/partners/partners.ts';
import {
  AccountBlockedError,
  AddressScreening,
  ScreeningUnavailableError,
} from '../../src/screening/addressScreening.ts';
import { HttpScreening } from '../../src/screening/httpScreening.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, expectErrorBody, newPartner, startTestServer, type TestServer } from '../support/testServer.ts';

const BLOCKED = 'eip155:8453:0x8589427373D6D84E98730D7795D8f6f8731FDA16';
const CLEAN = 'eip155:8453:0x722122dF12D4e14e13Ac3b6895a86e84145b6967';

/** How the local screening service behaves for the next requests. */
type Behaviour = 'answer' | 'slow' | 'error' | 'partial';

/**
 * A screening service on a local socket, answering as the README documents (`POST {"accounts"}` to
 * `{"version", "results"}`), slowly, with an error, or leaving accounts out; and a port where nothing listens.
 */
describe('address screening by an HTTP service', () => {
  let service: http.Server;
  let url: string;
  let downUrl: string;
  let behaviour: Behaviour = 'answer';
  const requests: unknown[] = [];
  let db: Db;
  const warnings: string[] = [];

  beforeAll(async () => {
    service = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const asked = JSON.parse(body) as { accounts: string[] };
        requests.push({ method: request.method, type: request.headers['content-type'], body: asked });
        const answer = () => {
          if (behaviour === 'error') return response.writeHead(500).end('down for maintenance');
          const accounts = behaviour === 'partial' ? asked.accounts.slice(1) : asked.accounts;
          response.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              version: 'sanctions-2026-11-29',
              results: accounts.map((account) =>
                account === BLOCKED ? { account, blocked: true, reason: 'OFAC SDN' } : { account, blocked: false },
              ),
            }),
          );
        };
        if (behaviour === 'slow') setTimeout(answer, 1_500);
        else answer();
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(service.address() as AddressInfo).port}/screen`;
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/screen`;
    await new Promise((resolve) => closed.close(resolve));
    db = connect(inject('databaseUrl'), 2);
  });
  afterAll(async () => {
    service.closeAllConnections();
    await new Promise((resolve) => service.close(resolve));
    await db?.destroy();
  });

  const screening = (target: string, onFailure: 'closed' | 'open') =>
    new AddressScreening(db, new HttpScreening(target, 300), onFailure, (message) => warnings.push(message));
  const decisionsOf = (paymentId: string) =>
    db
      .selectFrom('screening_decisions')
      .select(['account', 'step', 'blocked', 'provider', 'list_version', 'reason'])
      .where('payment_id', '=', paymentId)
      .orderBy('id')
      .execute();

  it('blocks what the service blocks, asking once for all accounts, and records its version and reason', async () => {
    behaviour = 'answer';
    requests.length = 0;
    const paymentId = `pay_${randomUUID()}`;
    await expect(screening(url, 'closed').check('options', [CLEAN, BLOCKED, CLEAN], { paymentId })).rejects.toThrow(
      AccountBlockedError,
    );
    expect(requests).toEqual([{ method: 'POST', type: 'application/json', body: { accounts: [CLEAN, BLOCKED] } }]);
    expect(await decisionsOf(paymentId)).toEqual([
      {
        account: CLEAN,
        step: 'options',
        blocked: false,
        provider: 'http',
        list_version: 'sanctions-2026-11-29',
        reason: null,
      },
      {
        account: BLOCKED,
        step: 'options',
        blocked: true,
        provider: 'http',
        list_version: 'sanctions-2026-11-29',
        reason: 'OFAC SDN',
      },
    ]);
    await screening(url, 'closed').check('confirm', [CLEAN], { paymentId });
  });

  for (const [name, failing] of [
    ['slow past its timeout', () => ({ target: url, behaviour: 'slow' as const })],
    ['down', () => ({ target: downUrl, behaviour: 'answer' as const })],
    ['answering an error', () => ({ target: url, behaviour: 'error' as const })],
    ['leaving an account out', () => ({ target: url, behaviour: 'partial' as const })],
  ] as const) {
    it(`a service ${name}: fails closed (refused) or open (goes on, recorded as not screened), as configured`, async () => {
      const { target, behaviour: next } = failing();
      behaviour = next;
      const paymentId = `pay_${randomUUID()}`;
      await expect(screening(target, 'closed').check('confirm', [CLEAN, BLOCKED], { paymentId })).rejects.toThrow(
        ScreeningUnavailableError,
      );
      await screening(target, 'open').check('confirm', [CLEAN, BLOCKED], { paymentId });
      const decisions = await decisionsOf(paymentId);
      expect(decisions.map((decision) => [decision.account, decision.blocked])).toEqual([
        [CLEAN, false],
        [BLOCKED, false],
      ]);
      for (const decision of decisions) expect(decision.reason).toMatch(/^not screened: /);
      expect(warnings.at(-1)).toContain('screening fails open');
    });
  }

  describe('through the gateway (SCREENING=http)', () => {
    let server: TestServer;
    let paymentId: string;
    let walletHeaders: Record<string, string>;

    beforeAll(async () => {
      server = await startTestServer({
        env: { SCREENING: 'http', SCREENING_URL: url, SCREENING_TIMEOUT_MS: '300' },
      });
      const partner = await newPartner(server.db);
      const merchantId = (await createMerchant(server, partner.apiKey)).id;
      paymentId = (await createPayment(server, partner.apiKey, merchantId)).paymentId;
      const app = await createApp(server.db, partner.partnerId, 'Screened Wallet', 'https://wallet.example/icon.png');
      walletHeaders = { 'app-id': app.appId, 'client-id': 'device-1' };
    });
    afterAll(() => server?.close());

    const options = (accounts: string[]) =>
      call(server, `/v1/gateway/payment/${paymentId}/options`, {
        method: 'POST',
        headers: walletHeaders,
        body: { accounts },
      });

    it('answers 403 account_blocked for an account the service blocks', async () => {
      behaviour = 'answer';
      const refused = await options([BLOCKED]);
      expect(refused.status, refused.text).toBe(403);
      expect(expectErrorBody(refused)).toMatchObject({ code: 'account_blocked', details: { account: BLOCKED } });
    });

    it('answers 503 screening_unavailable with Retry-After while the service is slow, failing closed by default', async () => {
      behaviour = 'slow';
      const refused = await options([CLEAN]);
      expect(refused.status, refused.text).toBe(503);
      expect(expectErrorBody(refused)).toMatchObject({
        code: 'service_unavailable',
        details: { reason: 'screening_unavailable' },
      });
      expect(refused.headers.get('retry-after')).toBe('10');
    });
  });
});
