import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import {
  BASE_ACCOUNT,
  BASE_ACCOUNT_2,
  BASE_USDC,
  createMerchant,
  SOLANA_ACCOUNT,
  SOLANA_USDC,
} from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

/** Repeats `read` until `done` holds for its result, for at most about 5 s, and returns the last result. */
async function readUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 1; attempt < 100 && !done(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

describe('GET /v1/merchants/:merchantId', () => {
  let server: TestServer;
  let partner: TestPartner;

  const get = (merchantId: string) =>
    call(server, `/v1/merchants/${merchantId}`, { headers: { 'api-key': partner.apiKey } });

  beforeAll(async () => {
    // A lifetime far beyond the test, so only an invalidation can make the process see a change.
    server = await startTestServer({ env: { MERCHANT_CACHE_TTL_MS: '60000' } });
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  describe('happy path', () => {
    it('returns the merchant as created, with no settlement destinations yet', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const result = await get(merchant.id);
      expect(result.status).toBe(200);
      expect(result.body).toEqual({ merchant: { ...merchant, settlements: { crypto: [], fiat: [] } } });
    });

    it('includes the settlement destinations as their list route shows them, following every change at once', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const headers = { 'api-key': partner.apiKey };
      const settlementsListed = async () =>
        (await call(server, `/v1/merchants/${merchant.id}/settlements`, { headers })).body;
      // Cached first, so each change below must reach the cached view.
      expect((await get(merchant.id)).body.merchant.settlements).toEqual({ crypto: [], fiat: [] });

      const registered = await call(server, `/v1/merchants/${merchant.id}/settlements/crypto`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: {
          settlements: [
            { asset: BASE_USDC, destination: BASE_ACCOUNT },
            { asset: SOLANA_USDC, destination: SOLANA_ACCOUNT },
          ],
        },
      });
      expect(registered.status, registered.text).toBe(201);
      const afterCreate = (await get(merchant.id)).body.merchant.settlements;
      expect(afterCreate).toEqual({ crypto: registered.body.settlements, fiat: [] });
      expect(afterCreate).toEqual(await settlementsListed());

      const [usdc] = registered.body.settlements;
      const path = `/v1/merchants/${merchant.id}/settlements/crypto/${usdc.id}`;
      await call(server, path, { method: 'PUT', headers, body: { destination: BASE_ACCOUNT_2 } });
      expect((await get(merchant.id)).body.merchant.settlements.crypto[0]).toEqual({
        id: usdc.id,
        asset: BASE_USDC,
        destination: BASE_ACCOUNT_2,
      });
      await call(server, path, { method: 'DELETE', headers });
      expect((await get(merchant.id)).body.merchant.settlements.crypto).toEqual([registered.body.settlements[1]]);

      // An operator's fiat destination arrives by the database's notification, like any change of another process.
      const fiatId = newId('fiat');
      await server.db
        .insertInto('fiat_settlements')
        .values({ id: fiatId, merchant_id: merchant.id, bank_type: 'SEPA', status: 'active' })
        .execute();
      const withFiat = await readUntil(
        () => get(merchant.id),
        (result) => result.body.merchant.settlements.fiat.length === 1,
      );
      expect(withFiat.body.merchant.settlements.fiat).toEqual([{ id: fiatId, status: 'active', bankType: 'SEPA' }]);
      expect(withFiat.body.merchant.settlements).toEqual(await settlementsListed());
    });
  });

  describe('errors', () => {
    it('reports an unknown merchant as 404 not_found', async () => {
      const result = await get('mrch_01ZZZZZZZZZZZZZZZZZZZZZZZZ');
      expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
    });

    it('reports a deleted merchant as 404 not_found', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      await get(merchant.id);
      await call(server, `/v1/merchants/${merchant.id}`, { method: 'DELETE', headers: { 'api-key': partner.apiKey } });
      const result = await get(merchant.id);
      expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/merchants/:merchantId',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'GET',
    path: `/v1/merchants/${(await createMerchant(server, partner.apiKey)).id}`,
  }),
});
