import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';

/** More keys than the in-memory store keeps (100,000), each one a wallet app's invented Client-Id. */
const FLOOD_REQUESTS = 101_000;
const FLOOD_CONNECTIONS = 64;

describe('rate limits in process memory under a flood of invented keys', () => {
  let server: TestServer;
  let partner: TestPartner;
  const merchants = () => call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey } });
  const signIn = (apiKey: string) => call(server, '/dashboard/api/session', { method: 'POST', body: { apiKey } });

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        RATE_LIMIT_MAX: '5',
        RATE_LIMIT_WINDOW_MS: String(30 * 60_000),
        DASHBOARD_SIGN_IN_MAX: '2',
      },
    });
    partner = await newPartner(server.db);
  });
  afterAll(() => server?.close());

  /** What an attacker's script does: one request per invented Client-Id of the partner's public App-Id. */
  async function flood(): Promise<Map<number, number>> {
    const pool = new Pool(server.url, { connections: FLOOD_CONNECTIONS, pipelining: 1 });
    const statuses = new Map<number, number>();
    let next = 0;
    try {
      await Promise.all(
        Array.from({ length: FLOOD_CONNECTIONS }, async () => {
          while (next < FLOOD_REQUESTS) {
            const clientId = `invented-${next++}`;
            const response = await pool.request({
              method: 'GET',
              path: '/v1/gateway/payment/pay_flood',
              headers: { 'app-id': partner.appId, 'client-id': clientId },
            });
            await response.body.dump();
            statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          }
        }),
      );
    } finally {
      await pool.close();
    }
    return statuses;
  }

  it('keeps a blocked key and a blocked sign-in address blocked through 101,000 invented Client-Ids', async () => {
    const before = [];
    for (let attempt = 0; attempt < 6; attempt++) before.push((await merchants()).status);
    expect(before).toEqual([200, 200, 200, 200, 200, 429]);
    const guesses = [];
    for (let attempt = 0; attempt < 3; attempt++) guesses.push((await signIn('sk_a-wrong-guess')).status);
    expect(guesses).toEqual([401, 401, 429]);

    const statuses = await flood();
    expect([...statuses.values()].reduce((sum, count) => sum + count, 0)).toBe(FLOOD_REQUESTS);

    expect((await merchants()).status).toBe(429);
    expect((await signIn(partner.apiKey)).status).toBe(429);
    // The address's own count held too: past its first five, every invented Client-Id was refused.
    expect(statuses.get(429)).toBe(FLOOD_REQUESTS - 5);
  }, 180_000);
});
