import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('GET /v1/merchants', () => {
  let server: TestServer;
  let partner: TestPartner;
  const created: string[] = [];

  const list = (query = '', apiKey = partner.apiKey) =>
    call(server, `/v1/merchants${query}`, { headers: { 'api-key': apiKey } });

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    for (const name of ['Alpha Books', 'Beta Bikes', 'Gamma Books', 'Delta 100%_off', 'Epsilon Café']) {
      created.push(
        (await createMerchant(server, partner.apiKey, { merchantName: name, merchantEmail: 'shop@example.com' })).id,
      );
    }
    await server.db.updateTable('merchants').set({ status: 'suspended' }).where('id', '=', created[1]!).execute();
  });
  afterAll(() => server.close());

  describe('happy path', () => {
    it('lists only this partner’s merchants, newest first, with a null cursor at the end', async () => {
      const other = await newPartner(server.db, 'Other');
      await createMerchant(server, other.apiKey);
      const result = await list();
      expect(result.status).toBe(200);
      expect(result.body.data.map((merchant: { id: string }) => merchant.id)).toEqual([...created].reverse());
      expect(result.body.nextCursor).toBeNull();
    });

    it('pages with an opaque cursor without repeating or skipping', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const result = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(result.status).toBe(200);
        expect(result.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...result.body.data.map((merchant: { id: string }) => merchant.id));
        cursor = result.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual([...created].reverse());
    });

    it('filters by status and by a name substring, treating % and _ literally', async () => {
      const suspended = await list('?status=suspended');
      expect(suspended.body.data.map((merchant: { id: string }) => merchant.id)).toEqual([created[1]]);
      const books = await list('?search=books');
      expect(books.body.data.map((merchant: { name: string }) => merchant.name)).toEqual([
        'Gamma Books',
        'Alpha Books',
      ]);
      const literal = await list(`?search=${encodeURIComponent('100%_')}`);
      expect(literal.body.data.map((merchant: { name: string }) => merchant.name)).toEqual(['Delta 100%_off']);
      const percent = await list(`?search=${encodeURIComponent('%')}`);
      expect(percent.body.data).toHaveLength(1);
    });

    it('finds a merchant by its id, or part of it, in any case, as the documented search does', async () => {
      const id = created[2] as string;
      const whole = await list(`?search=${id}`);
      expect(whole.body.data.map((merchant: { id: string }) => merchant.id)).toEqual([id]);
      const part = await list(`?search=${id.slice(-10).toLowerCase()}`);
      expect(part.body.data.map((merchant: { id: string }) => merchant.id)).toEqual([id]);
    });

    it('counts every merchant matching the filters on every page, and answers the page as merchants too', async () => {
      const first = await list('?limit=2');
      expect(first.body.totalCount).toBe(created.length);
      expect(first.body.merchants).toEqual(first.body.data);
      expect(first.body.data).toHaveLength(2);
      const second = await list(`?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
      expect(second.body.totalCount).toBe(created.length);
      expect(second.body.merchants).toEqual(second.body.data);
      expect((await list('?search=books&limit=1')).body.totalCount).toBe(2);
      expect((await list('?status=suspended')).body.totalCount).toBe(1);
      expect((await list('?status=inactive')).body).toEqual({
        data: [],
        merchants: [],
        totalCount: 0,
        nextCursor: null,
      });
    });

    it('leaves deleted merchants out of the page and the count', async () => {
      const deleted = await createMerchant(server, partner.apiKey, {
        merchantName: 'Zeta Books',
        merchantEmail: 'shop@example.com',
      });
      expect((await list('?search=books')).body.totalCount).toBe(3);
      const removed = await call(server, `/v1/merchants/${deleted.id}`, {
        method: 'DELETE',
        headers: { 'api-key': partner.apiKey },
      });
      expect(removed.status).toBe(200);
      const books = await list('?search=books');
      expect(books.body.data.map((merchant: { id: string }) => merchant.id)).toEqual([created[2], created[0]]);
      expect(books.body.totalCount).toBe(2);
      const all = await list();
      expect(all.body.data.map((merchant: { id: string }) => merchant.id)).toEqual([...created].reverse());
      expect(all.body.totalCount).toBe(created.length);
    });
  });

  describe('errors', () => {
    it.each([['?limit=0'], ['?limit=101'], ['?limit=abc'], ['?status=closed'], ['?search='], ['?unknown=1']])(
      'refuses %s with params_validation',
      async (query) => {
        const result = await list(query);
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      },
    );

    it('refuses a tampered cursor, a forged one and one from another query', async () => {
      const first = await list('?limit=1');
      const cursor: string = first.body.nextCursor;
      const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'BB' : 'AA'}`;
      for (const bad of [tampered, 'garbage', `${Buffer.from('{"p":"mrch_Z","q":"x"}').toString('base64url')}.abc`]) {
        const result = await list(`?limit=1&cursor=${encodeURIComponent(bad)}`);
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'invalid_params']);
      }
      const otherQuery = await list(`?limit=1&status=active&cursor=${encodeURIComponent(cursor)}`);
      expect([otherQuery.status, expectErrorBody(otherQuery).code]).toEqual([400, 'invalid_params']);
    });

    it("refuses another partner's cursor", async () => {
      const other = await newPartner(server.db, 'Cursor thief');
      const cursor: string = (await list('?limit=1')).body.nextCursor;
      const result = await list(`?limit=1&cursor=${encodeURIComponent(cursor)}`, other.apiKey);
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'invalid_params']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/merchants',
  scope: 'merchants',
  request: async () => ({ method: 'GET', path: '/v1/merchants' }),
});
