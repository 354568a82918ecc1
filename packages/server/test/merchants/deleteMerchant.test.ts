import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { BASE_ACCOUNT, BASE_ACCOUNT_2, BASE_USDC, createMerchant, createPayment } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('DELETE /v1/merchants/:merchantId', () => {
  let server: TestServer;
  let partner: TestPartner;

  const remove = (merchantId: string, apiKey = partner.apiKey) =>
    call(server, `/v1/merchants/${merchantId}`, { method: 'DELETE', headers: { 'api-key': apiKey } });
  const merchantEvents = (merchantId: string) =>
    server.db
      .selectFrom('webhook_events')
      .select(['type', 'body'])
      .where('merchant_id', '=', merchantId)
      .orderBy('id')
      .execute();

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  describe('happy path', () => {
    it('deletes the merchant once, answers the same when repeated, and records one merchant.updated event', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const first = await remove(merchant.id);
      expect(first.status, first.text).toBe(200);
      expect(first.body).toEqual({ id: merchant.id, deleted: true });
      const row = await server.db
        .selectFrom('merchants')
        .select('deleted_at')
        .where('id', '=', merchant.id)
        .executeTakeFirstOrThrow();
      expect(row.deleted_at).toBeInstanceOf(Date);

      const again = await remove(merchant.id);
      expect([again.status, again.body]).toEqual([200, { id: merchant.id, deleted: true }]);
      const stillDeletedAt = await server.db
        .selectFrom('merchants')
        .select('deleted_at')
        .where('id', '=', merchant.id)
        .executeTakeFirstOrThrow();
      expect(stillDeletedAt.deleted_at).toEqual(row.deleted_at);

      const events = await merchantEvents(merchant.id);
      expect(events.map((event) => event.type)).toEqual(['merchant.updated']);
      expect(JSON.parse(events[0]!.body).data.object).toEqual({ ...merchant, deleted: true });
    });

    it('takes the merchant out of the list and its own routes, and out of the list count', async () => {
      const kept = await createMerchant(server, partner.apiKey, { merchantName: 'Kept', merchantEmail: 'k@shop.com' });
      const merchant = await createMerchant(server, partner.apiKey);
      const registered = await call(server, `/v1/merchants/${merchant.id}/settlements/crypto`, {
        method: 'POST',
        headers: { 'api-key': partner.apiKey, 'idempotency-key': randomUUID() },
        body: { settlements: [{ asset: BASE_USDC, destination: BASE_ACCOUNT }] },
      });
      expect(registered.status, registered.text).toBe(201);
      const settlementId: string = registered.body.settlements[0].id;
      // Read first, so the merchant and its destinations sit in the process's cache when it is deleted.
      expect(
        (await call(server, `/v1/merchants/${merchant.id}`, { headers: { 'api-key': partner.apiKey } })).status,
      ).toBe(200);
      const before = await call(server, '/v1/merchants?limit=100', { headers: { 'api-key': partner.apiKey } });

      expect((await remove(merchant.id)).status).toBe(200);

      const after = await call(server, '/v1/merchants?limit=100', { headers: { 'api-key': partner.apiKey } });
      const ids = after.body.data.map((entry: { id: string }) => entry.id);
      expect(ids).not.toContain(merchant.id);
      expect(ids).toContain(kept.id);
      expect(after.body.totalCount).toBe(before.body.totalCount - 1);
      const headers = { 'api-key': partner.apiKey };
      const settlementPath = `/v1/merchants/${merchant.id}/settlements/crypto/${settlementId}`;
      for (const [method, path, body] of [
        ['GET', `/v1/merchants/${merchant.id}`, undefined],
        ['PATCH', `/v1/merchants/${merchant.id}`, { merchantName: 'Back again' }],
        ['GET', `/v1/merchants/${merchant.id}/settlements`, undefined],
        [
          'POST',
          `/v1/merchants/${merchant.id}/settlements/crypto`,
          { settlements: [{ asset: BASE_USDC, destination: BASE_ACCOUNT_2 }] },
        ],
        ['PUT', settlementPath, { destination: BASE_ACCOUNT_2 }],
        ['DELETE', settlementPath, undefined],
      ] as const) {
        const result = await call(server, path, {
          method,
          headers: { ...headers, 'idempotency-key': randomUUID() },
          ...(body ? { body } : {}),
        });
        expect([method, path, result.status, expectErrorBody(result).code]).toEqual([method, path, 404, 'not_found']);
      }
      const name = await server.db
        .selectFrom('merchants')
        .select('name')
        .where('id', '=', merchant.id)
        .executeTakeFirstOrThrow();
      expect(name.name).toBe('Corner Shop');
      const destinations = await server.db
        .selectFrom('crypto_settlements')
        .select('destination')
        .where('merchant_id', '=', merchant.id)
        .execute();
      expect(destinations).toEqual([{ destination: BASE_ACCOUNT }]);
    });

    it('refuses new payments on both create paths like an unknown merchant, and keeps its payments readable', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const { paymentId } = await createPayment(server, partner.apiKey, merchant.id, { referenceId: 'before-delete' });
      const open = await createPayment(server, partner.apiKey, merchant.id);
      const headers = { 'api-key': partner.apiKey, 'merchant-id': merchant.id };
      const itemBefore = await call(server, `/v1/payments/${paymentId}`, { headers });
      expect(itemBefore.status).toBe(200);

      expect((await remove(merchant.id)).status).toBe(200);

      for (const path of ['/v1/payments', '/v1/merchant/payment']) {
        const refused = await call(server, path, {
          method: 'POST',
          headers,
          body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `after-delete-${randomUUID()}` },
        });
        expect([path, refused.status, expectErrorBody(refused).code]).toEqual([path, 404, 'merchant_not_found']);
        expect(expectErrorBody(refused).message).toBe(`Merchant ${merchant.id} not found.`);
      }
      const replay = await call(server, '/v1/payments', {
        method: 'POST',
        headers,
        body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: 'before-delete' },
      });
      expect([replay.status, expectErrorBody(replay).code]).toEqual([404, 'merchant_not_found']);

      const item = await call(server, `/v1/payments/${paymentId}`, { headers });
      expect([item.status, item.body]).toEqual([200, itemBefore.body]);
      const status = await call(server, `/v1/merchant/payment/${paymentId}/status`, { headers });
      expect([status.status, status.body]).toEqual([200, { status: 'pending', isFinal: false }]);
      const list = await call(server, '/v1/merchants/payments', { headers });
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.map((entry: { paymentId: string }) => entry.paymentId).sort()).toEqual(
        [paymentId, open.paymentId].sort(),
      );
      const cancelled = await call(server, `/v1/payments/${open.paymentId}/cancel`, { method: 'POST', headers });
      expect(cancelled.status, cancelled.text).toBe(200);
    });
  });

  describe('errors', () => {
    it('reports an unknown merchant and another partner’s merchant alike, as 404 not_found, deleting nothing', async () => {
      const other = await newPartner(server.db, 'Other partner');
      const theirs = await createMerchant(server, other.apiKey);
      const unknown = await remove('mrch_01ZZZZZZZZZZZZZZZZZZZZZZZZ');
      const foreign = await remove(theirs.id);
      for (const result of [unknown, foreign]) {
        expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
      }
      expect(expectErrorBody(foreign).message).toBe(`Merchant ${theirs.id} not found.`);
      const read = await call(server, `/v1/merchants/${theirs.id}`, { headers: { 'api-key': other.apiKey } });
      expect(read.status).toBe(200);
      expect(await merchantEvents(theirs.id)).toEqual([]);
    });

    it('refuses an over-long id with params_validation', async () => {
      const result = await remove(`mrch_${'Z'.repeat(80)}`);
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
    });
  });
});

runCommonRouteTests({
  name: 'DELETE /v1/merchants/:merchantId',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'DELETE',
    path: `/v1/merchants/${(await createMerchant(server, partner.apiKey)).id}`,
  }),
});
