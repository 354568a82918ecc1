import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createApp } from '../../src/partners/partners.ts';
import { type EventType, recordEvent } from '../../src/webhooks/events.ts';
import { STREAMS_PER_PARTNER } from '../../src/webhooks/streamEvents.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  type call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

interface Received {
  id: string;
  type: string;
  data: string;
}

/** An open event stream: what it received so far, and how to close it. */
interface OpenStream {
  status: number;
  received: Received[];
  close(): void;
}

describe('GET /v1/events/stream', () => {
  let server: TestServer;
  let partner: TestPartner;
  let other: TestPartner;
  const opened: OpenStream[] = [];

  async function openStream(
    headers: Record<string, string>,
    query = '',
  ): Promise<OpenStream & { error?: Awaited<ReturnType<typeof call>> }> {
    const stop = new AbortController();
    const response = await fetch(`${server.url}/v1/events/stream${query}`, { headers, signal: stop.signal });
    if (!response.ok || !response.body) {
      const text = await response.text();
      return {
        status: response.status,
        received: [],
        close: () => {},
        error: { status: response.status, headers: response.headers, body: JSON.parse(text), text },
      };
    }
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const received: Received[] = [];
    void (async () => {
      const events = response
        .body!.pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      for (let next = await events.read(); !next.done; next = await events.read())
        received.push({ id: next.value.id!, type: next.value.event!, data: next.value.data });
    })().catch(() => undefined);
    const stream = { status: response.status, received, close: () => stop.abort() };
    opened.push(stream);
    return stream;
  }

  const record = (owner: TestPartner, type: EventType, merchantId: string | null = null) =>
    server.db
      .transaction()
      .execute((trx) =>
        recordEvent(trx, { partnerId: owner.partnerId, merchantId, type, object: { id: `pay_${type}` } }),
      );
  const storedBody = async (eventId: string) =>
    (await server.db.selectFrom('webhook_events').select('body').where('id', '=', eventId).executeTakeFirstOrThrow())
      .body;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    other = await newPartner(server.db, 'Other partner');
  });
  afterAll(async () => {
    for (const stream of opened) stream.close();
    await server.close();
  });

  describe('happy path', () => {
    it('streams the events recorded after it opened, each with its id, type and exact webhook body', async () => {
      const before = await record(partner, 'payment.created');
      const stream = await openStream({ 'api-key': partner.apiKey });
      expect(stream.status).toBe(200);
      const first = await record(partner, 'payment.succeeded');
      const second = await record(partner, 'payment.settled');
      await expect.poll(() => stream.received.length, { timeout: 5_000 }).toBe(2);
      expect(stream.received).toEqual([
        { id: first, type: 'payment.succeeded', data: await storedBody(first) },
        { id: second, type: 'payment.settled', data: await storedBody(second) },
      ]);
      expect(stream.received.map((event) => event.id)).not.toContain(before);
      stream.close();
    });

    it("keeps to the types and the merchant asked for, and never shows another partner's events", async () => {
      const merchant = await createMerchant(server, partner.apiKey);
      const stream = await openStream(
        { 'api-key': partner.apiKey },
        `?events=payment.succeeded,payment.failed&merchantId=${merchant.id}`,
      );
      await record(partner, 'payment.succeeded', 'mrch_someone_else');
      await record(partner, 'payment.created', merchant.id);
      await record(other, 'payment.succeeded', merchant.id);
      const wanted = await record(partner, 'payment.failed', merchant.id);
      await expect.poll(() => stream.received.map((event) => event.id), { timeout: 5_000 }).toEqual([wanted]);
      stream.close();
    });

    it('resumes after Last-Event-ID with what was recorded since, at least once', async () => {
      const resumer = await newPartner(server.db, 'Resuming partner');
      const seen = await record(resumer, 'payment.created');
      const missed = await record(resumer, 'payment.processing');
      const stream = await openStream({ 'api-key': resumer.apiKey, 'last-event-id': seen });
      await expect.poll(() => stream.received.map((event) => event.id), { timeout: 5_000 }).toEqual([missed]);
      const next = await record(resumer, 'payment.succeeded');
      await expect.poll(() => stream.received.map((event) => event.id), { timeout: 5_000 }).toEqual([missed, next]);
      stream.close();
    });

    it('pages through more events than one read holds, all recorded at one moment, each once', async () => {
      const busy = await newPartner(server.db, 'Busy partner');
      const stream = await openStream({ 'api-key': busy.apiKey });
      // One transaction stamps every event with the same time, as a settlement of many payments does.
      const ids = await server.db.transaction().execute(async (trx) => {
        const recorded: string[] = [];
        for (let index = 0; index < 1_203; index++) {
          recorded.push(
            await recordEvent(trx, {
              partnerId: busy.partnerId,
              merchantId: null,
              type: 'payment.settled',
              object: { index },
            }),
          );
        }
        return recorded;
      });
      await expect.poll(() => stream.received.length, { timeout: 20_000 }).toBe(ids.length);
      expect(new Set(stream.received.map((event) => event.id))).toEqual(new Set(ids));
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(stream.received.length).toBe(ids.length);
      stream.close();
    });
  });

  describe('errors', () => {
    it('refuses an unknown event type, naming the known ones', async () => {
      const { error } = await openStream({ 'api-key': partner.apiKey }, '?events=payment.succeeded,payment.bogus');
      expect(error?.status).toBe(400);
      const body = expectErrorBody(error!);
      expect(body.code).toBe('params_validation');
      expect(body.message).toContain('payment.succeeded');
      expect(body.issues).toEqual([{ field: 'events', message: 'unknown event type payment.bogus' }]);
    });

    it('refuses an unknown query parameter and a Last-Event-ID that is not one of the account', async () => {
      expect((await openStream({ 'api-key': partner.apiKey }, '?since=yesterday')).status).toBe(400);
      const foreign = await record(other, 'payment.created');
      const { error } = await openStream({ 'api-key': partner.apiKey, 'last-event-id': foreign });
      expect({ status: error?.status, code: expectErrorBody(error!).code }).toEqual({ status: 404, code: 'not_found' });
    });

    it(`holds at most ${STREAMS_PER_PARTNER} streams per account at once, then answers 429 with Retry-After`, async () => {
      const crowd = await newPartner(server.db, 'Crowded partner');
      const streams = [];
      for (let index = 0; index < STREAMS_PER_PARTNER; index++)
        streams.push(await openStream({ 'api-key': crowd.apiKey }));
      expect(streams.map((stream) => stream.status)).toEqual(Array(STREAMS_PER_PARTNER).fill(200));
      const refused = await openStream({ 'api-key': crowd.apiKey });
      expect({ status: refused.status, code: expectErrorBody(refused.error!).code }).toEqual({
        status: 429,
        code: 'rate_limited',
      });
      expect(refused.error?.headers.get('retry-after')).toBe('10');
      expect((await openStream({ 'api-key': partner.apiKey })).status).toBe(200);
      streams[0]!.close();
      await expect.poll(async () => (await openStream({ 'api-key': crowd.apiKey })).status).toBe(200);
    });
  });

  describe('security', () => {
    const expectRefused = (
      result: OpenStream & { error?: Awaited<ReturnType<typeof call>> },
      status: number,
      code: string,
    ) => {
      expect({ status: result.status, code: result.error && expectErrorBody(result.error).code }).toEqual({
        status,
        code,
      });
      expect(result.error?.headers.get('pay-version')).toMatch(/^\d{4}-\d{2}-\d{2}/);
    };

    it('refuses no key, a wrong key and a key without the merchants scope', async () => {
      expectRefused(await openStream({}), 401, 'missing_api_key');
      expectRefused(await openStream({ 'api-key': 'sk_not-a-real-key' }), 401, 'invalid_api_key');
      const gatewayOnly = await createApiKey(server.db, partner.partnerId, ['gateway']);
      expectRefused(await openStream({ 'api-key': gatewayOnly.apiKey }), 403, 'forbidden');
    });

    it('streams a key only the events its scopes read: to a merchants-only key, no payment or refund', async () => {
      const merchantsOnly = await createApiKey(server.db, partner.partnerId, ['merchants']);
      const stream = await openStream({ 'api-key': merchantsOnly.apiKey });
      expect(stream.status).toBe(200);
      await record(partner, 'payment.succeeded');
      await record(partner, 'refund.created');
      const merchantEvent = await record(partner, 'merchant.updated');
      await expect.poll(() => stream.received.map((event) => event.id), { timeout: 5_000 }).toEqual([merchantEvent]);
      stream.close();
      expectRefused(
        await openStream({ 'api-key': merchantsOnly.apiKey }, '?events=payment.succeeded'),
        403,
        'forbidden',
      );
      const paymentEvent = await record(partner, 'payment.created');
      expectRefused(
        await openStream({ 'api-key': merchantsOnly.apiKey, 'last-event-id': paymentEvent }),
        404,
        'not_found',
      );
    });

    it("refuses wallet app credentials and another partner's merchant", async () => {
      const app = await createApp(server.db, partner.partnerId, 'Wallet');
      expectRefused(await openStream({ 'app-id': app.appId, 'client-id': 'device-1' }), 403, 'forbidden');
      const merchant = await createMerchant(server, partner.apiKey);
      expectRefused(
        await openStream({ 'api-key': other.apiKey }, `?merchantId=${merchant.id}`),
        404,
        'merchant_not_found',
      );
    });
  });
});
