import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCheckoutAppId } from '../../src/checkout/checkoutApp.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, expectErrorBody, newPartner, startTestServer, type TestServer } from '../support/testServer.ts';

describe("the checkout page's own wallet app", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('is created once, even by concurrent first calls, under a service partner without API keys', async () => {
    const ids = await Promise.all([
      ensureCheckoutAppId(server.db),
      ensureCheckoutAppId(server.db),
      ensureCheckoutAppId(server.db),
    ]);
    expect(new Set(ids).size).toBe(1);
    expect(await ensureCheckoutAppId(server.db)).toBe(ids[0]);
    const app = await server.db.selectFrom('apps').selectAll().where('id', '=', ids[0]!).executeTakeFirstOrThrow();
    const keys = await server.db.selectFrom('api_keys').select('id').where('partner_id', '=', app.partner_id).execute();
    expect(keys).toEqual([]);
  });

  it('is the App-Id the page carries, good for the gateway status and refused elsewhere', async () => {
    const partner = await newPartner(server.db);
    const merchant = await createMerchant(server, partner.apiKey);
    const { paymentId } = await createPayment(server, partner.apiKey, merchant.id);
    const page = await call(server, `/${paymentId}`);
    expect(page.status).toBe(200);
    const appId = /data-app-id="(app_[0-9A-Z]+)"/.exec(page.text)?.[1];
    expect(appId).toBe(await ensureCheckoutAppId(server.db));

    const headers = { 'app-id': appId!, 'client-id': 'web-0123abcd' };
    const status = await call(server, `/v1/gateway/payment/${paymentId}/status?maxPollMs=0`, { headers });
    expect(status.status, status.text).toBe(200);
    expect(status.body).toMatchObject({ status: 'requires_action', isFinal: false });
    const merchants = await call(server, '/v1/merchants', { headers });
    expect([merchants.status, expectErrorBody(merchants).code]).toEqual([403, 'forbidden']);
  });
});
