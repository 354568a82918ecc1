import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventType, recordEvent } from '../../src/webhooks/events.ts';
import { createWebhookTasks } from '../../src/webhooks/tasks.ts';
import { verifyWebhookSignature } from '@paygate/client/webhooks';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant } from '../support/fixtures.ts';
import { createIsolatedDatabase } from '../support/isolatedDatabase.ts';
import { createTestCertificate } from '../support/logoServer.ts';
import {
  type CallResult,
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from './support.ts';

describe('POST /v1/webhooks/{id}/test-events, delivered by real workers to a real HTTPS receiver', () => {
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let partner: TestPartner;
  let other: TestPartner;

  const register = async (
    path: string,
    events: EventType[],
    owner = partner,
    merchantId?: string,
  ): Promise<{ id: string; secret: string; url: string }> => {
    const result = await call(server, '/v1/webhooks', {
      method: 'POST',
      headers: { 'api-key': owner.apiKey },
      body: { url: receiver.urlFor(path), events, ...(merchantId ? { merchantId } : {}) },
    });
    if (result.status !== 201) throw new Error(`endpoint not registered: ${result.text}`);
    return result.body.webhook;
  };
  const sendTest = (endpointId: string, options: { body?: unknown; apiKey?: string } = {}) =>
    call(server, `/v1/webhooks/${endpointId}/test-events`, {
      method: 'POST',
      headers: { 'api-key': options.apiKey ?? partner.apiKey },
      body: options.body,
    });
  const attemptLog = async (endpointId: string) => {
    const result = await call(server, `/v1/webhooks/${endpointId}/deliveries`, {
      headers: { 'api-key': partner.apiKey },
    });
    expect(result.status, result.text).toBe(200);
    return result.body.data as Array<Record<string, unknown>>;
  };
  const expectNotFound = (result: CallResult) => {
    expect(result.status, result.text).toBe(404);
    expect(expectErrorBody(result).code).toBe('not_found');
  };

  beforeAll(async () => {
    const certificate = await createTestCertificate();
    // Its own database: the webhook worker of this server takes every delivery of the queue it runs on.
    database = await createIsolatedDatabase();
    receiver = await startWebhookReceiver(certificate);
    server = await startTestServer({
      databaseUrl: database.url,
      context: { webhookDelivery: { allowPrivateHosts: true, extraCaCertificates: [certificate.cert] } },
      tasks: (ctx) => createWebhookTasks(ctx),
    });
    partner = await newPartner(server.db);
    other = await newPartner(server.db, 'Other partner');
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await database?.drop();
  });

  it('sends one signed webhook.test event to that endpoint alone, though it subscribes to other events, and lists it', async () => {
    const tested = await register('/tested', ['payment.succeeded']);
    const sibling = await register('/sibling', ['payment.succeeded', 'merchant.updated']);
    await register('/others', ['payment.succeeded'], other);

    const result = await sendTest(tested.id);
    expect(result.status, result.text).toBe(202);
    expect(result.body).toEqual({ eventId: expect.stringMatching(/^evt_/), deliveryId: expect.any(String) });
    const { eventId, deliveryId } = result.body;

    const attempt = await waitFor('the test delivery in the log', async () => (await attemptLog(tested.id))[0]);
    expect(attempt).toMatchObject({ deliveryId, eventId, eventType: 'webhook.test', attempt: 1, outcome: 'succeeded' });
    const [request, ...more] = receiver.received('/tested');
    expect(more).toEqual([]);
    expect(request!.headers['pay-event-id']).toBe(eventId);
    const header = String(request!.headers['pay-signature']);
    expect(verifyWebhookSignature({ payload: request!.body, header, secret: tested.secret })).toBe(true);
    expect(verifyWebhookSignature({ payload: request!.body, header, secret: sibling.secret })).toBe(false);
    expect(JSON.parse(request!.body)).toEqual({
      id: eventId,
      type: 'webhook.test',
      createdAt: expect.any(String),
      apiVersion: '2026-02-18',
      data: { object: { endpointId: tested.id, url: tested.url, message: 'A test event from paygate' } },
    });

    // An event that other endpoint subscribes to reaches it, with no test event before it.
    await server.db.transaction().execute((trx) =>
      recordEvent(trx, {
        partnerId: partner.partnerId,
        merchantId: null,
        type: 'merchant.updated',
        object: { id: 'mer_x' },
      }),
    );
    await waitFor('the merchant.updated delivery', () => receiver.received('/sibling').length === 1);
    expect(JSON.parse(receiver.received('/sibling')[0]!.body).type).toBe('merchant.updated');
    const siblingLog = await waitFor('its attempt in the log', async () => {
      const log = await attemptLog(sibling.id);
      return log.length > 0 && log;
    });
    expect(siblingLog.map((each) => each.eventType)).toEqual(['merchant.updated']);
    expect(receiver.received('/others')).toEqual([]);
  });

  it('reaches an endpoint limited to one merchant, with an empty JSON body too', async () => {
    const merchant = await createMerchant(server, partner.apiKey);
    const limited = await register('/limited', ['refund.failed'], partner, merchant.id);
    const result = await sendTest(limited.id, { body: {} });
    expect(result.status, result.text).toBe(202);
    await waitFor('the test delivery', () => receiver.received('/limited').length === 1);
    expect(JSON.parse(receiver.received('/limited')[0]!.body).id).toBe(result.body.eventId);
  });

  it('is left out of the event stream, which follows the account rather than one endpoint', async () => {
    const endpoint = await register('/streamed', ['payment.succeeded']);
    const stop = new AbortController();
    const response = await fetch(`${server.url}/v1/events/stream`, {
      headers: { 'api-key': partner.apiKey },
      signal: stop.signal,
    });
    expect(response.status).toBe(200);
    const types: string[] = [];
    void (async () => {
      const events = response
        .body!.pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      for (let next = await events.read(); !next.done; next = await events.read()) types.push(next.value.event!);
    })().catch(() => undefined);
    try {
      expect((await sendTest(endpoint.id)).status).toBe(202);
      await server.db.transaction().execute((trx) =>
        recordEvent(trx, {
          partnerId: partner.partnerId,
          merchantId: null,
          type: 'payment.succeeded',
          object: { id: 'pay_streamed' },
        }),
      );
      await waitFor('the payment event on the stream', () => types.includes('payment.succeeded'));
      expect(types).toEqual(['payment.succeeded']);
    } finally {
      stop.abort();
    }
  });

  it('answers 404 for an unknown endpoint and for a deleted one, and 400 for a body that is not an object', async () => {
    expectNotFound(await sendTest('whk_unknown'));
    const deleted = await register('/deleted', ['payment.succeeded']);
    const removal = await call(server, `/v1/webhooks/${deleted.id}`, {
      method: 'DELETE',
      headers: { 'api-key': partner.apiKey },
    });
    expect(removal.status, removal.text).toBe(204);
    expectNotFound(await sendTest(deleted.id));

    const endpoint = await register('/not-an-object', ['payment.succeeded']);
    const notAnObject = await sendTest(endpoint.id, { body: ['payment.succeeded'] });
    expect(notAnObject.status, notAnObject.text).toBe(400);
    expect(expectErrorBody(notAnObject).code).toBe('params_validation');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received('/deleted')).toEqual([]);
    expect(receiver.received('/not-an-object')).toEqual([]);
  });

  it("answers 404 for another partner's endpoint and sends it nothing", async () => {
    const theirs = await register('/theirs', ['payment.succeeded'], other);
    expectNotFound(await sendTest(theirs.id));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received('/theirs')).toEqual([]);
  });
});

runCommonRouteTests({
  name: 'POST /v1/webhooks/{id}/test-events',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => {
    const result = await call(server, '/v1/webhooks', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { url: 'https://hooks.example.com/test-events', events: ['payment.succeeded'] },
    });
    if (result.status !== 201) throw new Error(`endpoint not registered: ${result.text}`);
    return { method: 'POST', path: `/v1/webhooks/${result.body.webhook.id}/test-events` };
  },
});
