import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSignInLink } from '../../src/dashboard/sessions.ts';
import { connect, type Db } from '../../src/db/database.ts';
import { type ServerProcess, startServerProcess } from '../support/serverProcess.ts';
import { newPartner } from '../support/testServer.ts';

const CONSOLES = [
  { home: '/dashboard', cookie: 'paygate_session', forPartner: true },
  { home: '/operator', cookie: 'paygate_operator', forPartner: false },
] as const;

/**
 * An attacker who reads the request log (LOG_REQUESTS=true) must find no one-time link there that still signs in,
 * whatever shape the request that carried it had.
 */
describe('one-time sign-in links and the request log', () => {
  let db: Db;
  let server: ServerProcess;
  let partnerId: string;
  const tokens: string[] = [];
  let requests = 0;

  const newLink = async (forPartner: boolean) => {
    const link = await createSignInLink(db, forPartner ? partnerId : null, 60_000, new Date());
    tokens.push(link.token);
    return link.token;
  };
  const follow = async (path: string, method = 'GET') => {
    requests += 1;
    const response = await fetch(`${server.url}${path}`, { method, redirect: 'manual' });
    await response.arrayBuffer();
    return response;
  };
  const signedIn = (response: Response, cookie: string) =>
    response.headers.getSetCookie().some((line) => line.startsWith(`${cookie}=`));

  beforeAll(async () => {
    db = connect(inject('databaseUrl'), 2);
    partnerId = (await newPartner(db, 'Linked partner')).partnerId;
    server = await startServerProcess({
      DATABASE_URL: inject('databaseUrl'),
      DEMO_PARTNER: 'never',
      LOG_LEVEL: 'info',
      LOG_REQUESTS: 'true',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.destroy();
  });

  describe.each(CONSOLES)('$home', ({ home, cookie, forPartner }) => {
    it.each(['/x', '/', '/x/y', '/%2e%2e%2fx'])(
      'refuses <link>%s without signing in, and leaves the link spent',
      async (suffix) => {
        const token = await newLink(forPartner);
        const odd = await follow(`${home}/link/${token}${suffix}`);
        expect(signedIn(odd, cookie)).toBe(false);
        const replayed = await follow(`${home}/link/${token}`);
        expect([replayed.status, replayed.headers.get('location'), signedIn(replayed, cookie)]).toEqual([
          303,
          `${home}/sign-in?link=spent`,
          false,
        ]);
      },
    );

    it('leaves no link that signs in after a request for it with another method, or at a doubled slash', async () => {
      for (const [path, method] of [
        [(token: string) => `${home}/link/${token}`, 'POST'],
        [(token: string) => `${home}//link/${token}`, 'GET'],
        [(token: string) => `${home}/link//${token}`, 'GET'],
      ] as const) {
        const token = await newLink(forPartner);
        const odd = await follow(path(token), method);
        expect(signedIn(odd, cookie)).toBe(false);
        const replayed = await follow(`${home}/link/${token}`);
        expect(signedIn(replayed, cookie), `${method} ${path('<token>')}`).toBe(false);
      }
    });

    it('spends a link followed at the other console, which does not sign in with it', async () => {
      const token = await newLink(!forPartner);
      const wrong = await follow(`${home}/link/${token}`);
      expect(signedIn(wrong, cookie)).toBe(false);
      const otherHome = home === '/dashboard' ? '/operator' : '/dashboard';
      const right = await follow(`${otherHome}/link/${token}`);
      expect(right.headers.get('location')).toBe(`${otherHome}/sign-in?link=spent`);
    });

    it('signs in once with a link followed as given, with or without a query', async () => {
      for (const query of ['', '?utm_source=mail']) {
        const token = await newLink(forPartner);
        const first = await follow(`${home}/link/${token}${query}`);
        expect([first.status, first.headers.get('location'), signedIn(first, cookie)]).toEqual([303, home, true]);
        const again = await follow(`${home}/link/${token}`);
        expect(signedIn(again, cookie)).toBe(false);
      }
    });
  });

  it('never writes a link token to the log', async () => {
    await expect
      .poll(() => server.output().split('"msg":"request completed"').length - 1, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(requests);
    const output = server.output();
    expect(output).toContain('"msg":"incoming request"');
    expect(tokens.length).toBeGreaterThan(10);
    for (const token of tokens) expect(output).not.toContain(token);
    expect(output).toContain('/link/[redacted]');
  });
});
