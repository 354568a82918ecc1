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

describe('GET /v1/merchants/:merchantId', () => {
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  it('happy path: returns the merchant as created', async () => {
    const merchant = await createMerchant(server, partner.apiKey);
    const result = await call(server, `/v1/merchants/${merchant.id}`, { headers: { 'api-key': partner.apiKey } });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ merchant });
  });

  it('errors: an unknown merchant is 404 not_found', async () => {
    const result = await call(server, '/v1/merchants/mrch_01ZZZZZZZZZZZZZZZZZZZZZZZZ', {
      headers: { 'api-key': partner.apiKey },
    });
    expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
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
