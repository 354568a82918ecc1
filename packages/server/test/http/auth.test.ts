import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/partners/partners.ts';
import { call, newPartner, startTestServer, type TestServer } from '../support/testServer.ts';

describe('API key cache', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_CACHE_TTL_MS: '300' } });
  });
  afterAll(() => server.close());

  it('stores only a hash of the key', async () => {
    const partner = await newPartner(server.db);
    const rows = await server.db
      .selectFrom('api_keys')
      .selectAll()
      .where('partner_id', '=', partner.partnerId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(partner.apiKey);
    expect(rows[0]?.secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a revoked key stops working once the cache time has passed', async () => {
    const partner = await newPartner(server.db);
    const key = await createApiKey(server.db, partner.partnerId, ['merchants']);
    const list = () => call(server, '/v1/merchants', { headers: { 'api-key': key.apiKey } });
    expect((await list()).status).toBe(200);
    await revokeApiKey(server.db, key.keyId);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const after = await list();
    expect([after.status, after.body.code]).toEqual([401, 'invalid_api_key']);
  });
});
