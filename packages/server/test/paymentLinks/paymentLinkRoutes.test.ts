import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setFeeSchedule } from '../../src/settlement/feeSchedules.ts';
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

const FIXED = { amount: { unit: 'iso4217/USD', value: '1250' }, description: 'Coffee beans, 1 kg' };
const CUSTOM = {
  customAmount: { unit: 'iso4217/EUR', minimum: '100', maximum: '50000', preset: '2000' },
  description: 'Tip the band',
};

/** A link created through the API for `merchantId`. */
async function createLink(server: TestServer, partner: TestPartner, merchantId: string, body: object = FIXED) {
  const created = await call(server, '/v1/payment-links', {
    method: 'POST',
    headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
    body,
  });
  if (created.status !== 201) throw new Error(`link not created: ${created.status} ${created.text}`);
  return created.body as { id: string; url: string };
}

describe('payment links: the merchant API', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  const headers = () => ({ 'api-key': partner.apiKey, 'merchant-id': merchantId });
  const create = (body: object, extra: Record<string, string> = {}) =>
    call(server, '/v1/payment-links', { method: 'POST', headers: { ...headers(), ...extra }, body });
  const update = (id: string, body: object) =>
    call(server, `/v1/payment-links/${id}`, { method: 'PATCH', headers: headers(), body });

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server.close());

  describe('happy path', () => {
    it('creates a fixed-price link with its public page, reads it with empty stats, and lists it', async () => {
      const before = Math.floor(Date.now() / 1000);
      const created = await create({
        ...FIXED,
        quantity: { maximum: 4 },
        maxUses: 3,
        imageUrl: 'https://shop.example/beans.png',
        expiresAt: before + 86_400,
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^plink_[0-9A-Z]{26}$/),
        url: `${server.url}/l/${created.body.id}`,
        merchantId,
        status: 'active',
        active: true,
        description: 'Coffee beans, 1 kg',
        amount: { unit: 'iso4217/USD', value: '1250' },
        customAmount: null,
        imageUrl: 'https://shop.example/beans.png',
        quantity: { maximum: 4 },
        maxUses: 3,
        uses: 0,
        expiresAt: before + 86_400,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const read = await call(server, `/v1/payment-links/${created.body.id}`, { headers: headers() });
      expect(read.body).toEqual({
        ...created.body,
        stats: { totalRevenue: [], totalRefunded: [], totalTransactions: 0, totalCustomers: 0 },
      });
      const listed = await call(server, `/v1/payment-links?merchantId=${merchantId}`, { headers: headers() });
      expect(listed.body.data.map((link: { id: string }) => link.id)).toContain(created.body.id);
    });

    it('creates a link whose buyer chooses the amount, and a deactivated one', async () => {
      const custom = await create(CUSTOM);
      expect(custom.body).toMatchObject({
        amount: null,
        customAmount: { unit: 'iso4217/EUR', minimum: '100', maximum: '50000', preset: '2000' },
        quantity: null,
        maxUses: null,
        expiresAt: null,
      });
      const off = await create({ ...FIXED, active: false });
      expect(off.body).toMatchObject({ active: false, status: 'inactive' });
    });

    it('answers a replayed Idempotency-Key with the same link, made once', async () => {
      const key = randomUUID();
      const first = await create(FIXED, { 'idempotency-key': key });
      const again = await create(FIXED, { 'idempotency-key': key });
      expect([again.status, again.body]).toEqual([201, first.body]);
      const reused = await create({ ...FIXED, description: 'Another' }, { 'idempotency-key': key });
      expect([reused.status, expectErrorBody(reused).code]).toEqual([409, 'idempotency_conflict']);
    });

    it('pages newest first, filters by merchant and by active, and refuses a cursor of another query', async () => {
      const shop = (await createMerchant(server, partner.apiKey)).id;
      const ids: string[] = [];
      for (let index = 0; index < 3; index++) ids.push((await createLink(server, partner, shop)).id);
      await call(server, `/v1/payment-links/${ids[1]}/deactivate`, { method: 'POST', headers: headers() });
      const first = await call(server, `/v1/payment-links?merchantId=${shop}&limit=2`, { headers: headers() });
      expect(first.body.data.map((link: { id: string }) => link.id)).toEqual([ids[2], ids[1]]);
      const second = await call(
        server,
        `/v1/payment-links?merchantId=${shop}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
        { headers: headers() },
      );
      expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
      const active = await call(server, `/v1/payment-links?merchantId=${shop}&active=true`, { headers: headers() });
      expect(active.body.data.map((link: { id: string }) => link.id)).toEqual([ids[2], ids[0]]);
      const inactive = await call(server, `/v1/payment-links?merchantId=${shop}&active=false`, { headers: headers() });
      expect(inactive.body.data.map((link: { id: string }) => link.id)).toEqual([ids[1]]);
      const foreign = await call(
        server,
        `/v1/payment-links?merchantId=${merchantId}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
        { headers: headers() },
      );
      expect([foreign.status, expectErrorBody(foreign).code]).toEqual([400, 'invalid_params']);
    });

    it('changes only what an update names; null clears; a price of the other kind replaces the first', async () => {
      const link = await createLink(server, partner, merchantId, { ...FIXED, maxUses: 5, quantity: { maximum: 2 } });
      const renamed = await update(link.id, { description: 'Coffee beans, 500 g', maxUses: null });
      expect(renamed.status, renamed.text).toBe(200);
      expect(renamed.body).toMatchObject({
        description: 'Coffee beans, 500 g',
        maxUses: null,
        quantity: { maximum: 2 },
        amount: FIXED.amount,
      });
      const custom = await update(link.id, {
        customAmount: { unit: 'iso4217/USD', minimum: '500', maximum: '900' },
        quantity: null,
      });
      expect(custom.body).toMatchObject({
        amount: null,
        customAmount: { unit: 'iso4217/USD', minimum: '500', maximum: '900', preset: null },
        quantity: null,
        description: 'Coffee beans, 500 g',
      });
      const off = await update(link.id, { active: false });
      expect(off.body).toMatchObject({ active: false, status: 'inactive' });
      const on = await update(link.id, { active: true });
      expect(on.body).toMatchObject({ active: true, status: 'active' });
    });

    it('deactivates once: again changes nothing', async () => {
      const link = await createLink(server, partner, merchantId);
      const off = await call(server, `/v1/payment-links/${link.id}/deactivate`, { method: 'POST', headers: headers() });
      expect(off.body).toMatchObject({ active: false, status: 'inactive' });
      const again = await call(server, `/v1/payment-links/${link.id}/deactivate`, {
        method: 'POST',
        headers: headers(),
      });
      expect(again.body).toEqual(off.body);
    });
  });

  describe('errors', () => {
    it('refuses each invalid field with 400 params_validation naming it, creating nothing', async () => {
      const cases: [object, string][] = [
        [{ description: 'No price' }, 'amount'],
        [{ ...FIXED, ...CUSTOM }, 'amount'],
        [{ ...FIXED, amount: { unit: 'iso4217/XXX', value: '100' } }, 'amount.unit'],
        [{ ...FIXED, amount: { unit: 'iso4217/USD', value: '12.50' } }, 'amount.value'],
        [{ ...CUSTOM, customAmount: { unit: 'iso4217/EUR', minimum: '500', maximum: '100' } }, 'customAmount.maximum'],
        [
          { ...CUSTOM, customAmount: { unit: 'iso4217/EUR', minimum: '100', maximum: '500', preset: '50' } },
          'customAmount.preset',
        ],
        [{ ...FIXED, description: ' ' }, 'description'],
        [{ ...FIXED, imageUrl: 'http://shop.example/a.png' }, 'imageUrl'],
        [{ ...CUSTOM, quantity: { maximum: 3 } }, 'quantity'],
        [{ ...FIXED, expiresAt: 1_000 }, 'expiresAt'],
      ];
      const before = await server.db.selectFrom('payment_links').select('id').execute();
      for (const [body, field] of cases) {
        const refused = await create(body);
        expect([refused.status, expectErrorBody(refused).code], JSON.stringify(body)).toEqual([
          400,
          'params_validation',
        ]);
        expect(expectErrorBody(refused).issues?.map((issue) => issue.field)).toContain(field);
      }
      for (const body of [
        { ...FIXED, maxUses: 0 },
        { ...FIXED, quantity: { maximum: 101 } },
        { ...FIXED, description: 'x'.repeat(501) },
      ]) {
        const refused = await create(body);
        expect([refused.status, refused.body.code], JSON.stringify(body)).toEqual([400, expect.any(String)]);
      }
      expect(await server.db.selectFrom('payment_links').select('id').execute()).toHaveLength(before.length);
    });

    it("refuses a smallest amount that does not cover the partner's fixed fee", async () => {
      const feePartner = await newPartner(server.db, 'Fee partner');
      await setFeeSchedule(server.db, feePartner.partnerId, {
        percentage: '0',
        fixed: [{ currency: 'USD', amount: 500n }],
      });
      const shop = (await createMerchant(server, feePartner.apiKey)).id;
      const refused = await call(server, '/v1/payment-links', {
        method: 'POST',
        headers: { 'api-key': feePartner.apiKey, 'merchant-id': shop },
        body: { customAmount: { unit: 'iso4217/USD', minimum: '500', maximum: '1000' }, description: 'Tips' },
      });
      expect([refused.status, expectErrorBody(refused).issues?.[0]?.field]).toEqual([400, 'customAmount.minimum']);
    });

    it('refuses to change a link to another currency or to nothing, and an unknown link is 404', async () => {
      const link = await createLink(server, partner, merchantId);
      const otherCurrency = await update(link.id, { amount: { unit: 'iso4217/EUR', value: '1000' } });
      expect([otherCurrency.status, expectErrorBody(otherCurrency).issues?.[0]?.field]).toEqual([400, 'amount.unit']);
      const empty = await update(link.id, {});
      expect(empty.status).toBe(400);
      for (const [method, path] of [
        ['GET', '/v1/payment-links/plink_unknown'],
        ['PATCH', '/v1/payment-links/plink_unknown'],
        ['POST', '/v1/payment-links/plink_unknown/deactivate'],
      ] as const) {
        const missing = await call(server, path, {
          method,
          headers: headers(),
          ...(method === 'PATCH' ? { body: { active: false } } : {}),
        });
        expect([missing.status, expectErrorBody(missing).code]).toEqual([404, 'not_found']);
      }
    });

    it("refuses a link for another partner's merchant and one without Merchant-Id", async () => {
      const other = await newPartner(server.db, 'Other partner');
      const theirs = (await createMerchant(server, other.apiKey)).id;
      const foreign = await call(server, '/v1/payment-links', {
        method: 'POST',
        headers: { 'api-key': partner.apiKey, 'merchant-id': theirs },
        body: FIXED,
      });
      expect([foreign.status, expectErrorBody(foreign).code]).toEqual([404, 'merchant_not_found']);
      const unnamed = await call(server, '/v1/payment-links', {
        method: 'POST',
        headers: { 'api-key': partner.apiKey },
        body: FIXED,
      });
      expect([unnamed.status, expectErrorBody(unnamed).code]).toEqual([401, 'missing_merchant_id']);
    });
  });

  const withLink = async (server: TestServer, owner: TestPartner) => {
    const shop = (await createMerchant(server, owner.apiKey)).id;
    return { shop, link: await createLink(server, owner, shop) };
  };
  runCommonRouteTests({
    name: 'POST /v1/payment-links',
    scope: 'payments',
    request: async (server, owner) => ({
      method: 'POST',
      path: '/v1/payment-links',
      headers: { 'merchant-id': (await createMerchant(server, owner.apiKey)).id },
      body: FIXED,
    }),
    ownedResource: true,
  });
  runCommonRouteTests({
    name: 'GET /v1/payment-links',
    scope: 'payments',
    request: async (server, owner) => ({
      method: 'GET',
      path: `/v1/payment-links?merchantId=${(await withLink(server, owner)).shop}`,
    }),
    ownedResource: true,
  });
  runCommonRouteTests({
    name: 'GET /v1/payment-links/{id}',
    scope: 'payments',
    request: async (server, owner) => ({
      method: 'GET',
      path: `/v1/payment-links/${(await withLink(server, owner)).link.id}`,
    }),
    ownedResource: true,
  });
  runCommonRouteTests({
    name: 'PATCH /v1/payment-links/{id}',
    scope: 'payments',
    request: async (server, owner) => ({
      method: 'PATCH',
      path: `/v1/payment-links/${(await withLink(server, owner)).link.id}`,
      body: { description: 'Renamed' },
    }),
    ownedResource: true,
  });
  runCommonRouteTests({
    name: 'POST /v1/payment-links/{id}/deactivate',
    scope: 'payments',
    request: async (server, owner) => ({
      method: 'POST',
      path: `/v1/payment-links/${(await withLink(server, owner)).link.id}/deactivate`,
    }),
    ownedResource: true,
  });
});
