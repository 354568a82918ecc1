import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSIONS } from '../../src/http/versions.ts';
import { createApiKey } from '../../src/partners/partners.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

const REFERENCE = '2026-02-18';
const PREVIEW = '2026-02-19.preview';

describe('/v1/api-version: a partner reads its pinned API version and moves it forward', () => {
  let server: TestServer;

  beforeAll(async () => {
    // Credentials are remembered for the default 5 s: a new pin must still hold at once in this process.
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const as = (apiKey: string, path: string, options: { method?: string; body?: unknown } = {}) =>
    call(server, path, { ...options, headers: { 'api-key': apiKey } });
  const pinnedInDatabase = async (partnerId: string) =>
    (
      await server.db
        .selectFrom('partners')
        .select('pinned_version')
        .where('id', '=', partnerId)
        .executeTakeFirstOrThrow()
    ).pinned_version;

  describe('happy path', () => {
    it('shows the pin with every known version, oldest first', async () => {
      const partner = await newPartner(server.db);
      const shown = await as(partner.apiKey, '/v1/api-version');
      expect(shown.status).toBe(200);
      expect(shown.body).toEqual({
        pinnedVersion: REFERENCE,
        versions: API_VERSIONS.map(({ version, description }) => ({ version, description })),
      });
      expect(shown.body.versions.map((entry: { version: string }) => entry.version)).toEqual([REFERENCE, PREVIEW]);
    });

    it('moves the pin forward: requests without a version header run under it at once, with the same key', async () => {
      const partner = await newPartner(server.db);
      // The key is remembered with its partner's pin before the pin moves.
      expect((await as(partner.apiKey, '/v1/payments')).headers.get('pay-version')).toBe(REFERENCE);

      const pinned = await as(partner.apiKey, '/v1/api-version', { method: 'PUT', body: { version: PREVIEW } });
      expect(pinned.status, pinned.text).toBe(200);
      expect(pinned.body.pinnedVersion).toBe(PREVIEW);
      expect(await pinnedInDatabase(partner.partnerId)).toBe(PREVIEW);
      expect((await as(partner.apiKey, '/v1/api-version')).body.pinnedVersion).toBe(PREVIEW);
      const listed = await as(partner.apiKey, '/v1/payments');
      expect(listed.headers.get('pay-version')).toBe(PREVIEW);

      // Pinning the same version again answers the same.
      const again = await as(partner.apiKey, '/v1/api-version', { method: 'PUT', body: { version: PREVIEW } });
      expect([again.status, again.body.pinnedVersion]).toEqual([200, PREVIEW]);
    });
  });

  describe('errors', () => {
    let partner: TestPartner;
    beforeAll(async () => {
      partner = await newPartner(server.db);
    });

    it.each([
      [{ version: '2026-13-01' }, 400, 'invalid_api_version'],
      [{ version: 'latest' }, 400, 'invalid_api_version'],
      [{ version: '2030-01-01' }, 400, 'unknown_api_version'],
      [{ version: '' }, 400, 'params_validation'],
      [{}, 400, 'params_validation'],
      ['2026-02-18', 400, 'params_validation'],
    ])('refuses %j with %i %s and leaves the pin', async (body, status, code) => {
      const answer = await as(partner.apiKey, '/v1/api-version', { method: 'PUT', body });
      expect([answer.status, expectErrorBody(answer).code]).toEqual([status, code]);
      expect(await pinnedInDatabase(partner.partnerId)).toBe(REFERENCE);
    });

    it('never moves the pin backwards', async () => {
      const forward = await newPartner(server.db);
      await as(forward.apiKey, '/v1/api-version', { method: 'PUT', body: { version: PREVIEW } });
      const back = await as(forward.apiKey, '/v1/api-version', {
        method: 'PUT',
        body: { version: REFERENCE },
        // The version the request itself runs under is the pin; only the body asks to go back.
      });
      expect([back.status, expectErrorBody(back).code]).toEqual([400, 'api_version_downgrade']);
      expect(await pinnedInDatabase(forward.partnerId)).toBe(PREVIEW);
    });
  });

  describe('security', () => {
    it('lets only credentials holding every scope move the pin; any merchants key reads it', async () => {
      const partner = await newPartner(server.db);
      const { apiKey } = await createApiKey(server.db, partner.partnerId, ['merchants']);
      expect((await as(apiKey, '/v1/api-version')).status).toBe(200);
      const refused = await as(apiKey, '/v1/api-version', { method: 'PUT', body: { version: PREVIEW } });
      expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'forbidden']);
      expect(await pinnedInDatabase(partner.partnerId)).toBe(REFERENCE);
    });

    it("moves only the caller's own pin", async () => {
      const partner = await newPartner(server.db);
      const other = await newPartner(server.db, 'Other partner');
      await as(partner.apiKey, '/v1/api-version', { method: 'PUT', body: { version: PREVIEW } });
      expect(await pinnedInDatabase(other.partnerId)).toBe(REFERENCE);
      expect((await as(other.apiKey, '/v1/api-version')).body.pinnedVersion).toBe(REFERENCE);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/api-version',
  scope: 'merchants',
  request: async () => ({ method: 'GET', path: '/v1/api-version' }),
});

runCommonRouteTests({
  name: 'PUT /v1/api-version',
  scope: 'merchants',
  request: async () => ({ method: 'PUT', path: '/v1/api-version', body: { version: REFERENCE } }),
});
