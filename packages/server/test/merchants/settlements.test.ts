import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import {
  BASE_ACCOUNT,
  BASE_ACCOUNT_2,
  BASE_EURC,
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

describe('settlement destinations', () => {
  let server: TestServer;
  let partner: TestPartner;

  const register = (merchantId: string, settlements: unknown, key: string | null = randomUUID()) =>
    call(server, `/v1/merchants/${merchantId}/settlements/crypto`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, ...(key === null ? {} : { 'idempotency-key': key }) },
      body: { settlements },
    });
  const listOf = (merchantId: string) =>
    call(server, `/v1/merchants/${merchantId}/settlements`, { headers: { 'api-key': partner.apiKey } });

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  describe('POST /v1/merchants/:merchantId/settlements/crypto', () => {
    it('happy path: registers several destinations, listed afterwards', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const result = await register(merchant.id, [
        { asset: BASE_USDC, destination: BASE_ACCOUNT },
        { asset: `caip19/${SOLANA_USDC}`, destination: SOLANA_ACCOUNT },
      ]);
      expect(result.status, result.text).toBe(201);
      expect(result.body.settlements).toHaveLength(2);
      expect(result.body.settlements[0]).toMatchObject({ asset: BASE_USDC, destination: BASE_ACCOUNT });
      expect(result.body.settlements[1]).toMatchObject({ asset: SOLANA_USDC, destination: SOLANA_ACCOUNT });
      for (const settlement of result.body.settlements) expect(settlement.id).toMatch(/^crypto_[0-9A-Z]{26}$/);
      const listed = await listOf(merchant.id);
      expect(listed.body).toEqual({ fiat: [], crypto: result.body.settlements });
    });

    it('happy path: matches an EVM asset whatever the address case, storing the canonical id', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const result = await register(merchant.id, [{ asset: BASE_USDC.toLowerCase(), destination: BASE_ACCOUNT }]);
      expect(result.status, result.text).toBe(201);
      expect(result.body.settlements[0].asset).toBe(BASE_USDC);
    });

    it('happy path: replays for the same Idempotency-Key', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const key = randomUUID();
      const first = await register(merchant.id, [{ asset: BASE_USDC, destination: BASE_ACCOUNT }], key);
      const again = await register(merchant.id, [{ asset: BASE_USDC, destination: BASE_ACCOUNT }], key);
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
    });

    it('errors: an asset already registered is settlement_asset_conflict and stores nothing', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      await register(merchant.id, [{ asset: BASE_USDC, destination: BASE_ACCOUNT }]);
      const clash = await register(merchant.id, [
        { asset: BASE_EURC, destination: BASE_ACCOUNT },
        { asset: BASE_USDC, destination: BASE_ACCOUNT_2 },
      ]);
      expect([clash.status, expectErrorBody(clash).code]).toEqual([409, 'settlement_asset_conflict']);
      expect((await listOf(merchant.id)).body.crypto.map((entry: { asset: string }) => entry.asset)).toEqual([
        BASE_USDC,
      ]);
    });

    it('errors: the same asset twice in one request is a conflict', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const clash = await register(merchant.id, [
        { asset: BASE_USDC, destination: BASE_ACCOUNT },
        { asset: BASE_USDC, destination: BASE_ACCOUNT_2 },
      ]);
      expect([clash.status, expectErrorBody(clash).code]).toEqual([409, 'settlement_asset_conflict']);
      expect((await listOf(merchant.id)).body.crypto).toEqual([]);
    });

    it.each([
      [
        'an unsupported asset',
        [{ asset: 'eip155:8453/erc20:0x0000000000000000000000000000000000000001', destination: BASE_ACCOUNT }],
        'settlements.0.asset',
      ],
      ['a malformed asset', [{ asset: 'USDC', destination: BASE_ACCOUNT }], 'settlements.0.asset'],
      [
        'a destination on another chain',
        [{ asset: BASE_USDC, destination: 'eip155:1:0x1111111111111111111111111111111111111111' }],
        'settlements.0.destination',
      ],
      ['an invalid EVM address', [{ asset: BASE_USDC, destination: 'eip155:8453:0x12' }], 'settlements.0.destination'],
      [
        'a bad EVM checksum',
        [{ asset: BASE_USDC, destination: 'eip155:8453:0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913' }],
        'settlements.0.destination',
      ],
      [
        'an invalid Solana address',
        [{ asset: SOLANA_USDC, destination: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:not-base58-0OIl' }],
        'settlements.0.destination',
      ],
      ['an empty list', [], 'settlements'],
      [
        'over 50 entries',
        Array.from({ length: 51 }, () => ({ asset: BASE_USDC, destination: BASE_ACCOUNT })),
        'settlements',
      ],
      ['a missing destination', [{ asset: BASE_USDC }], 'settlements.0.destination'],
    ])('errors: refuses %s with params_validation', async (_name, settlements, field) => {
      const merchant = await createMerchant(server, partner.apiKey);
      const result = await register(merchant.id, settlements);
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      expect(expectErrorBody(result).issues?.map((issue) => issue.field)).toContain(field);
      expect((await listOf(merchant.id)).body.crypto).toEqual([]);
    });

    it('errors: requires an Idempotency-Key and a known merchant', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const noKey = await register(merchant.id, [{ asset: BASE_USDC, destination: BASE_ACCOUNT }], null);
      expect([noKey.status, expectErrorBody(noKey).code]).toEqual([400, 'missing_idempotency_key']);
      const unknown = await register('mrch_unknown', [{ asset: BASE_USDC, destination: BASE_ACCOUNT }]);
      expect([unknown.status, expectErrorBody(unknown).code]).toEqual([404, 'not_found']);
    });
  });

  describe('GET /v1/merchants/:merchantId/settlements', () => {
    it('happy path: lists fiat destinations recorded by the operator', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const id = newId('fiat');
      await server.db
        .insertInto('fiat_settlements')
        .values({ id, merchant_id: merchant.id, bank_type: 'SEPA', status: 'pending_verification' })
        .execute();
      const result = await listOf(merchant.id);
      expect(result.body).toEqual({ fiat: [{ id, status: 'pending_verification', bankType: 'SEPA' }], crypto: [] });
    });

    it('errors: unknown merchant is 404', async () => {
      const result = await listOf('mrch_01ZZZZZZZZZZZZZZZZZZZZZZZZ');
      expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
    });
  });

  describe('PUT and DELETE /v1/merchants/:merchantId/settlements/crypto/:id', () => {
    it('happy path: changes the destination, then removes it', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const [created] = (await register(merchant.id, [{ asset: BASE_USDC, destination: BASE_ACCOUNT }])).body
        .settlements;
      const path = `/v1/merchants/${merchant.id}/settlements/crypto/${created.id}`;
      const updated = await call(server, path, {
        method: 'PUT',
        headers: { 'api-key': partner.apiKey },
        body: { destination: BASE_ACCOUNT_2 },
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toEqual({ id: created.id, asset: BASE_USDC, destination: BASE_ACCOUNT_2 });
      const removed = await call(server, path, { method: 'DELETE', headers: { 'api-key': partner.apiKey } });
      expect([removed.status, removed.body]).toEqual([200, { id: created.id, deleted: true }]);
      expect((await listOf(merchant.id)).body.crypto).toEqual([]);
      const again = await call(server, path, { method: 'DELETE', headers: { 'api-key': partner.apiKey } });
      expect([again.status, expectErrorBody(again).code]).toEqual([404, 'not_found']);
    });

    it('errors: a destination on another chain or malformed is refused and nothing changes', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const [created] = (await register(merchant.id, [{ asset: BASE_USDC, destination: BASE_ACCOUNT }])).body
        .settlements;
      const path = `/v1/merchants/${merchant.id}/settlements/crypto/${created.id}`;
      for (const body of [{ destination: SOLANA_ACCOUNT }, { destination: 'nope' }, {}]) {
        const result = await call(server, path, { method: 'PUT', headers: { 'api-key': partner.apiKey }, body });
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      }
      expect((await listOf(merchant.id)).body.crypto).toEqual([created]);
      // A destination's asset never changes: an `asset` sent with PUT is not the route's field and is ignored.
      const moved = await call(server, path, {
        method: 'PUT',
        headers: { 'api-key': partner.apiKey },
        body: { destination: BASE_ACCOUNT_2, asset: BASE_EURC },
      });
      expect([moved.status, moved.body]).toEqual([200, { ...created, destination: BASE_ACCOUNT_2 }]);
    });

    it('errors: an unknown id, or one of another merchant, is 404', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const otherMerchant = await createMerchant(server, partner.apiKey);
      const [created] = (await register(otherMerchant.id, [{ asset: BASE_USDC, destination: BASE_ACCOUNT }])).body
        .settlements;
      const result = await call(server, `/v1/merchants/${merchant.id}/settlements/crypto/${created.id}`, {
        method: 'PUT',
        headers: { 'api-key': partner.apiKey },
        body: { destination: BASE_ACCOUNT_2 },
      });
      expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/merchants/:merchantId/settlements',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'GET',
    path: `/v1/merchants/${(await createMerchant(server, partner.apiKey)).id}/settlements`,
  }),
});

runCommonRouteTests({
  name: 'POST /v1/merchants/:merchantId/settlements/crypto',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => {
    const merchants = await Promise.all(Array.from({ length: 12 }, () => createMerchant(server, partner.apiKey)));
    // Each successful registration takes the asset for its merchant, so every call gets the next merchant.
    return {
      method: 'POST',
      get path() {
        return `/v1/merchants/${merchants.shift()?.id ?? 'none'}/settlements/crypto`;
      },
      body: { settlements: [{ asset: BASE_EURC, destination: BASE_ACCOUNT }] },
      headers: { 'idempotency-key': 'common' },
    };
  },
});

/** A destination that PUT can set again and again, for the shared checks. */
async function existingSettlementPath(server: TestServer, partner: TestPartner): Promise<string> {
  const merchant = await createMerchant(server, partner.apiKey);
  const result = await call(server, `/v1/merchants/${merchant.id}/settlements/crypto`, {
    method: 'POST',
    headers: { 'api-key': partner.apiKey, 'idempotency-key': randomUUID() },
    body: { settlements: [{ asset: BASE_USDC, destination: BASE_ACCOUNT }] },
  });
  return `/v1/merchants/${merchant.id}/settlements/crypto/${result.body.settlements[0].id}`;
}

runCommonRouteTests({
  name: 'PUT /v1/merchants/:merchantId/settlements/crypto/:id',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'PUT',
    path: await existingSettlementPath(server, partner),
    body: { destination: BASE_ACCOUNT_2 },
  }),
});

runCommonRouteTests({
  name: 'DELETE /v1/merchants/:merchantId/settlements/crypto/:id',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => {
    const paths = await Promise.all(Array.from({ length: 12 }, () => existingSettlementPath(server, partner)));
    // Each successful DELETE consumes a destination, so every call gets the next one.
    return {
      method: 'DELETE',
      get path() {
        return paths.shift() ?? '/v1/merchants/none/settlements/crypto/none';
      },
    };
  },
});
