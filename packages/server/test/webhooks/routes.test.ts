import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent, type EventType } from '../../src/webhooks/events.ts';
import { MAX_ENDPOINTS_PER_PARTNER } from '../../src/webhooks/createWebhookEndpoint.ts';
import { createApiKey } from '../../src/partners/partners.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('webhook endpoint and event routes', () => {
  let server: TestServer;
  let partner: TestPartner;
  let other: TestPartner;

  const as = (apiKey: string) => ({ 'api-key': apiKey });
  const register = (body: unknown, apiKey = partner.apiKey) =>
    call(server, '/v1/webhooks', { method: 'POST', headers: as(apiKey), body });
  const list = (apiKey = partner.apiKey) => call(server, '/v1/webhooks', { headers: as(apiKey) });
  const remove = (id: string, apiKey = partner.apiKey) =>
    call(server, `/v1/webhooks/${id}`, { method: 'DELETE', headers: as(apiKey) });
  const deliveries = (id: string, query = '', apiKey = partner.apiKey) =>
    call(server, `/v1/webhooks/${id}/deliveries${query}`, { headers: as(apiKey) });
  const redeliver = (eventId: string, body: unknown = {}, apiKey = partner.apiKey) =>
    call(server, `/v1/events/${eventId}/redeliver`, { method: 'POST', headers: as(apiKey), body });
  const expectIssue = (result: Awaited<ReturnType<typeof call>>, field: string) => {
    expect(result.status, result.text).toBe(400);
    const error = expectErrorBody(result);
    expect(error.code).toBe('params_validation');
    expect(error.issues?.map((issue) => issue.field)).toContain(field);
  };
  const newEvent = (owner: TestPartner, type: EventType = 'payment.succeeded', merchantId: string | null = null) =>
    server.db
      .transaction()
      .execute((trx) => recordEvent(trx, { partnerId: owner.partnerId, merchantId, type, object: { id: 'pay_x' } }));

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    other = await newPartner(server.db, 'Other partner');
  });
  afterAll(() => server.close());

  describe('POST /v1/webhooks', () => {
    it('registers an endpoint and shows its signing secret once', async () => {
      const result = await register({
        url: 'https://hooks.example.com/paygate',
        events: ['payment.succeeded', 'payment.failed'],
      });
      expect(result.status, result.text).toBe(201);
      const { webhook } = result.body;
      expect(webhook).toEqual({
        id: expect.stringMatching(/^whk_[0-9A-Z]{26}$/),
        url: 'https://hooks.example.com/paygate',
        events: ['payment.succeeded', 'payment.failed'],
        merchantId: null,
        createdAt: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      });
      const listed = await list();
      expect(listed.body.data).toContainEqual({ ...webhook, secret: undefined });
      expect(listed.text).not.toContain(webhook.secret);
      expect(listed.text).not.toContain('secret');
    });

    it('limits an endpoint to one of the partner’s merchants', async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const result = await register({
        url: 'https://hooks.example.com/one',
        events: ['merchant.updated'],
        merchantId: merchant.id,
      });
      expect(result.status, result.text).toBe(201);
      expect(result.body.webhook.merchantId).toBe(merchant.id);
    });

    it('refuses URLs that are not public HTTPS', async () => {
      for (const url of [
        'http://hooks.example.com/',
        'not a url',
        'https://user:pass@hooks.example.com/',
        'https://10.0.0.1/hook',
        'https://127.0.0.1:8443/',
        'https://[::1]/',
        'https://localhost/hook',
        'https://169.254.169.254/latest',
        'ftp://hooks.example.com/',
      ]) {
        expectIssue(await register({ url, events: ['payment.succeeded'] }), 'url');
      }
    });

    it('takes private HTTPS URLs where the operator allows them (WEBHOOK_ALLOW_PRIVATE_HOSTS), never plain HTTP', async () => {
      const internal = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' } });
      try {
        const owner = await newPartner(internal.db);
        const registerThere = (url: string) =>
          call(internal, '/v1/webhooks', {
            method: 'POST',
            headers: as(owner.apiKey),
            body: { url, events: ['payment.succeeded'] },
          });
        for (const url of ['https://127.0.0.1:8443/', 'https://10.0.0.1/hook', 'https://localhost/hook']) {
          const result = await registerThere(url);
          expect(result.status, result.text).toBe(201);
        }
        const plain = await registerThere('http://127.0.0.1:8080/');
        expect(plain.status, plain.text).toBe(400);
        expect(expectErrorBody(plain).issues?.map((issue) => issue.field)).toEqual(['url']);
      } finally {
        await internal.close();
      }
    });

    it('refuses missing, empty, unknown and repeated event types', async () => {
      expectIssue(await register({ url: 'https://hooks.example.com/' }), 'events');
      expectIssue(await register({ url: 'https://hooks.example.com/', events: [] }), 'events');
      expectIssue(await register({ url: 'https://hooks.example.com/', events: ['payment.refunded'] }), 'events.0');
      expectIssue(
        await register({ url: 'https://hooks.example.com/', events: ['payment.failed', 'payment.failed'] }),
        'events',
      );
      expectIssue(await register({ events: ['payment.failed'] }), 'url');
    });

    it('ignores fields it does not know: a secret cannot be chosen, the one it makes is shown', async () => {
      const result = await register({ url: 'https://hooks.example.com/', events: ['payment.failed'], secret: 'mine' });
      expect(result.status, result.text).toBe(201);
      expect(result.body.webhook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      const stored = await server.db
        .selectFrom('webhook_endpoints')
        .select('secret')
        .where('id', '=', result.body.webhook.id)
        .executeTakeFirstOrThrow();
      expect(stored.secret).toBe(result.body.webhook.secret);
    });

    it('subscribes a key only to events its scopes read: no payment or refund events without payments', async () => {
      const merchantsOnly = await createApiKey(server.db, partner.partnerId, ['merchants']);
      for (const events of [['payment.succeeded'], ['merchant.updated', 'refund.created']]) {
        const refused = await register({ url: 'https://hooks.example.com/narrow', events }, merchantsOnly.apiKey);
        expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'forbidden']);
        expect(expectErrorBody(refused).message).toContain('payments');
      }
      const merchantEvents = await register(
        { url: 'https://hooks.example.com/narrow', events: ['merchant.updated'] },
        merchantsOnly.apiKey,
      );
      expect(merchantEvents.status, merchantEvents.text).toBe(201);
      await remove(merchantEvents.body.webhook.id);
    });

    it("reports another partner's merchant and an unknown merchant as not found", async () => {
      const theirs = await createMerchant(server, other.apiKey);
      for (const merchantId of [theirs.id, 'mrch_01JUNKNOWN0000000000000000']) {
        const result = await register({ url: 'https://hooks.example.com/', events: ['payment.failed'], merchantId });
        expect(result.status).toBe(404);
        expect(expectErrorBody(result).code).toBe('merchant_not_found');
      }
    });

    it(`allows at most ${MAX_ENDPOINTS_PER_PARTNER} endpoints per partner`, async () => {
      const busy = await newPartner(server.db, 'Busy partner');
      const body = { url: 'https://hooks.example.com/many', events: ['payment.created'] };
      const results = await Promise.all(
        Array.from({ length: MAX_ENDPOINTS_PER_PARTNER + 3 }, () => register(body, busy.apiKey)),
      );
      expect(results.filter((result) => result.status === 201)).toHaveLength(MAX_ENDPOINTS_PER_PARTNER);
      const refused = results.filter((result) => result.status !== 201);
      expect(refused.map((result) => [result.status, expectErrorBody(result).code])).toEqual(
        Array(3).fill([409, 'webhook_endpoint_limit']),
      );
      const first = results.find((result) => result.status === 201)!;
      expect((await remove(first.body.webhook.id, busy.apiKey)).status).toBe(204);
      expect((await register(body, busy.apiKey)).status).toBe(201);
    });
  });

  describe('GET /v1/webhooks', () => {
    it("lists only the partner's live endpoints, newest first", async () => {
      const fresh = await newPartner(server.db, 'Lister');
      const ids: string[] = [];
      for (const path of ['a', 'b', 'c']) {
        ids.push(
          (await register({ url: `https://hooks.example.com/${path}`, events: ['payment.created'] }, fresh.apiKey)).body
            .webhook.id,
        );
      }
      await register({ url: 'https://hooks.example.com/theirs', events: ['payment.created'] }, other.apiKey);
      await remove(ids[1]!, fresh.apiKey);
      const result = await list(fresh.apiKey);
      expect(result.status).toBe(200);
      expect(result.body.data.map((endpoint: { id: string }) => endpoint.id)).toEqual([ids[2], ids[0]]);
    });
  });

  describe('DELETE /v1/webhooks/{id}', () => {
    it('deletes once, then reports not found; another partner cannot delete it', async () => {
      const id = (await register({ url: 'https://hooks.example.com/gone', events: ['payment.created'] })).body.webhook
        .id;
      const foreign = await remove(id, other.apiKey);
      expect([foreign.status, expectErrorBody(foreign).code]).toEqual([404, 'not_found']);
      expect((await list()).body.data.map((endpoint: { id: string }) => endpoint.id)).toContain(id);
      const deleted = await remove(id);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      const again = await remove(id);
      expect([again.status, expectErrorBody(again).code]).toEqual([404, 'not_found']);
      expect((await list()).body.data.map((endpoint: { id: string }) => endpoint.id)).not.toContain(id);
    });
  });

  describe('GET /v1/webhooks/{id}/deliveries', () => {
    it('is empty for a new endpoint', async () => {
      const id = (await register({ url: 'https://hooks.example.com/quiet', events: ['payment.created'] })).body.webhook
        .id;
      const result = await deliveries(id);
      expect(result.status, result.text).toBe(200);
      expect(result.body).toEqual({ data: [], nextCursor: null });
    });

    it("reports another partner's, a deleted and an unknown endpoint as not found", async () => {
      const theirs = (await register({ url: 'https://hooks.example.com/x', events: ['payment.created'] }, other.apiKey))
        .body.webhook.id;
      const deleted = (await register({ url: 'https://hooks.example.com/y', events: ['payment.created'] })).body.webhook
        .id;
      await remove(deleted);
      for (const id of [theirs, deleted, 'whk_unknown']) {
        const result = await deliveries(id);
        expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
      }
    });

    it('refuses a tampered cursor and an out-of-range limit', async () => {
      const id = (await register({ url: 'https://hooks.example.com/z', events: ['payment.created'] })).body.webhook.id;
      const tampered = await deliveries(id, '?cursor=eyJwIjoiMSJ9.abc');
      expect([tampered.status, expectErrorBody(tampered).code]).toEqual([400, 'invalid_params']);
      expectIssue(await deliveries(id, '?limit=0'), 'limit');
      expectIssue(await deliveries(id, '?limit=101'), 'limit');
    });
  });

  describe('POST /v1/events/{id}/redeliver', () => {
    it('schedules a new delivery to every live endpoint the event went to, or to the one given', async () => {
      const fresh = await newPartner(server.db, 'Redeliverer');
      const make = async (path: string) =>
        (await register({ url: `https://hooks.example.com/${path}`, events: ['payment.failed'] }, fresh.apiKey)).body
          .webhook.id as string;
      const [first, second, removed] = [await make('1'), await make('2'), await make('3')];
      const eventId = await newEvent(fresh, 'payment.failed');
      await remove(removed, fresh.apiKey);
      const later = await make('4');

      const all = await redeliver(eventId, {}, fresh.apiKey);
      expect(all.status, all.text).toBe(202);
      expect(all.body.deliveries.map((delivery: { endpointId: string }) => delivery.endpointId).sort()).toEqual(
        [first, second].sort(),
      );
      const rows = await server.db
        .selectFrom('webhook_deliveries')
        .select(['endpoint_id', 'redelivery', 'status'])
        .where(
          'id',
          'in',
          all.body.deliveries.map((delivery: { id: string }) => delivery.id),
        )
        .execute();
      expect(rows.every((row) => row.redelivery && row.status === 'pending')).toBe(true);

      const one = await redeliver(eventId, { endpointId: later }, fresh.apiKey);
      expect(one.status, one.text).toBe(202);
      expect(one.body.deliveries).toEqual([{ id: expect.any(String), endpointId: later }]);
    });

    it('keeps one waiting redelivery per endpoint however often, and at once, it is asked', async () => {
      const fresh = await newPartner(server.db, 'Insistent redeliverer');
      const endpoints = [];
      for (const path of ['a', 'b'])
        endpoints.push(
          (await register({ url: `https://hooks.example.com/${path}`, events: ['payment.failed'] }, fresh.apiKey)).body
            .webhook.id as string,
        );
      const eventId = await newEvent(fresh, 'payment.failed');
      const answers = await Promise.all(Array.from({ length: 10 }, () => redeliver(eventId, {}, fresh.apiKey)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(202));
      const waiting = await server.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'endpoint_id'])
        .where('event_id', '=', eventId)
        .where('redelivery', '=', true)
        .where('status', '=', 'pending')
        .orderBy('endpoint_id')
        .execute();
      expect(waiting.map((row) => row.endpoint_id)).toEqual([...endpoints].sort());
      for (const answer of answers) {
        expect(answer.body.deliveries).toEqual(waiting.map((row) => ({ id: row.id, endpointId: row.endpoint_id })));
      }
    });

    it('accepts a call without a body', async () => {
      const eventId = await newEvent(partner);
      const result = await call(server, `/v1/events/${eventId}/redeliver`, {
        method: 'POST',
        headers: as(partner.apiKey),
      });
      expect(result.status, result.text).toBe(202);
      expect(result.body).toEqual({ deliveries: expect.any(Array) });
    });

    it('redelivers to a key only the events its scopes read: no payment event without payments', async () => {
      const merchantsOnly = await createApiKey(server.db, partner.partnerId, ['merchants']);
      const refused = await redeliver(await newEvent(partner, 'payment.succeeded'), {}, merchantsOnly.apiKey);
      expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'forbidden']);
      const merchantEvent = await redeliver(await newEvent(partner, 'merchant.updated'), {}, merchantsOnly.apiKey);
      expect(merchantEvent.status, merchantEvent.text).toBe(202);
    });

    it("reports another partner's event or endpoint, and unknown ones, as not found", async () => {
      const theirEvent = await newEvent(other);
      const mine = await newEvent(partner);
      const theirEndpoint = (
        await register({ url: 'https://hooks.example.com/t', events: ['payment.created'] }, other.apiKey)
      ).body.webhook.id;
      for (const [eventId, body] of [
        [theirEvent, {}],
        ['evt_unknown', {}],
        [mine, { endpointId: theirEndpoint }],
        [mine, { endpointId: 'whk_unknown' }],
      ] as const) {
        const result = await redeliver(eventId, body);
        expect([result.status, expectErrorBody(result).code]).toEqual([404, 'not_found']);
      }
      expectIssue(await redeliver(mine, { endpointId: 42 }), 'endpointId');
    });
  });
});
