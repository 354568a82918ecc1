import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/log.ts';
import { createApiKey } from '../../src/partners/partners.ts';
import { recordEvent, type EventType } from '../../src/webhooks/events.ts';
import { sendWebhookRequest } from '../../src/webhooks/send.ts';
import { createWebhookTasks } from '../../src/webhooks/tasks.ts';
import { verifyWebhookSignature } from '@paygate/client/webhooks';
import { createTestCertificate, type TestCertificate } from '../support/logoServer.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from './support.ts';
import { createIsolatedDatabase } from '../support/isolatedDatabase.ts';

const ATTEMPT_TIMEOUT_MS = 1500;

describe('webhook delivery through real workers to a real HTTPS receiver', () => {
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let certificate: TestCertificate;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let partner: TestPartner;
  let workers: Workers | undefined;

  const startDeliveryWorkers = async () => {
    workers = await startWorkers(database.url, createWebhookTasks(server.ctx));
  };
  const register = async (path: string, events: EventType[] = ['payment.succeeded']) => {
    const result = await call(server, '/v1/webhooks', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { url: receiver.urlFor(path), events },
    });
    if (result.status !== 201) throw new Error(`endpoint not registered: ${result.text}`);
    return result.body.webhook as { id: string; secret: string };
  };
  const emit = (type: EventType = 'payment.succeeded', object: Record<string, unknown> = { id: 'pay_1' }) =>
    server.db
      .transaction()
      .execute((trx) => recordEvent(trx, { partnerId: partner.partnerId, merchantId: null, type, object }));
  const attemptLog = async (endpointId: string, query = '', apiKey = partner.apiKey) => {
    const result = await call(server, `/v1/webhooks/${endpointId}/deliveries${query}`, {
      headers: { 'api-key': apiKey },
    });
    expect(result.status, result.text).toBe(200);
    return result.body as { data: Array<Record<string, any>>; nextCursor: string | null };
  };
  const eventIds = (path: string) => receiver.received(path).map((request) => request.headers['pay-event-id']);

  /** What the process logged, as parsed lines. */
  const logged: Record<string, unknown>[] = [];

  beforeAll(async () => {
    [database, certificate] = await Promise.all([createIsolatedDatabase(), createTestCertificate()]);
    receiver = await startWebhookReceiver(certificate);
    server = await startTestServer({
      databaseUrl: database.url,
      context: {
        webhookDelivery: {
          allowPrivateHosts: true,
          extraCaCertificates: [certificate.cert],
          timeoutMs: ATTEMPT_TIMEOUT_MS,
          retry: { firstDelayMs: 100, maxDelayMs: 400, giveUpAfterMs: 2500, jitter: 0.2 },
        },
      },
    });
    partner = await newPartner(server.db);
    // After the server, which makes the process's logger: this one replaces it, keeping every line.
    createLogger('info', {
      destination: {
        write: (line: string) => {
          logged.push(JSON.parse(line));
        },
      },
    });
  });
  afterAll(async () => {
    await workers?.stop();
    await server?.close();
    await receiver?.close();
    await database?.drop();
  });

  let firstEvent: { id: string; endpointId: string; secret: string };

  it('delivers an event recorded while no worker runs once workers start again', async () => {
    await startDeliveryWorkers();
    await workers!.stop();
    workers = undefined;
    const endpoint = await register('/late');
    const id = await emit('payment.succeeded', { id: 'pay_late', status: 'succeeded' });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(receiver.received('/late')).toEqual([]);

    await startDeliveryWorkers();
    const [request] = await waitFor(
      'the delivery',
      () => receiver.received('/late').length === 1 && receiver.received('/late'),
    );
    expect(request!.headers['pay-event-id']).toBe(id);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toMatch(/^paygate-webhooks\//);
    const body = JSON.parse(request!.body);
    expect(body).toEqual({
      id,
      type: 'payment.succeeded',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      apiVersion: '2026-02-18',
      data: { object: { id: 'pay_late', status: 'succeeded' } },
    });
    firstEvent = { id, endpointId: endpoint.id, secret: endpoint.secret };
  });

  it('signs the raw body so the verifier accepts it, and refuses it altered, re-timed or too old', () => {
    const [request] = receiver.received('/late');
    const header = String(request!.headers['pay-signature']);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const signedAt = Number(/^t=(\d+)/.exec(header)![1]);
    expect(Math.abs(signedAt - Date.now() / 1000)).toBeLessThan(60);
    const { secret } = firstEvent;
    const payload = request!.body;
    expect(verifyWebhookSignature({ payload, header, secret })).toBe(true);
    expect(verifyWebhookSignature({ payload: payload.replace('pay_late', 'pay_evil'), header, secret })).toBe(false);
    expect(verifyWebhookSignature({ payload, header: header.replace(/^t=\d+/, `t=${signedAt - 1}`), secret })).toBe(
      false,
    );
    expect(verifyWebhookSignature({ payload, header, secret, now: new Date((signedAt + 301) * 1000) })).toBe(false);
    expect(verifyWebhookSignature({ payload, header, secret: 'whsec_someone-else' })).toBe(false);
  });

  it('redelivers the same event with the same id and body, logged as a redelivery', async () => {
    const result = await call(server, `/v1/events/${firstEvent.id}/redeliver`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: {},
    });
    expect(result.status, result.text).toBe(202);
    expect(result.body.deliveries).toEqual([{ id: expect.any(String), endpointId: firstEvent.endpointId }]);
    const requests = await waitFor(
      'the redelivery',
      () => receiver.received('/late').length === 2 && receiver.received('/late'),
    );
    expect(requests[1]!.headers['pay-event-id']).toBe(firstEvent.id);
    expect(requests[1]!.body).toBe(requests[0]!.body);
    expect(
      verifyWebhookSignature({
        payload: requests[1]!.body,
        header: String(requests[1]!.headers['pay-signature']),
        secret: firstEvent.secret,
      }),
    ).toBe(true);
    const log = await waitFor('the logged redelivery', async () => {
      const { data } = await attemptLog(firstEvent.endpointId);
      return data.length === 2 && data;
    });
    expect(log.map((entry) => [entry.eventId, entry.redelivery, entry.statusCode, entry.outcome])).toEqual([
      [firstEvent.id, true, 200, 'succeeded'],
      [firstEvent.id, false, 200, 'succeeded'],
    ]);
  });

  it('retries after a 500 and keeps order: event 1 twice, then event 2; every attempt is logged', async () => {
    receiver.on('/flaky', (_request, count) => (count === 1 ? 500 : 200));
    const endpoint = await register('/flaky', ['payment.processing', 'payment.succeeded']);
    const first = await emit('payment.processing', { id: 'pay_2', status: 'processing' });
    const second = await emit('payment.succeeded', { id: 'pay_2', status: 'succeeded' });
    await waitFor('three requests', () => receiver.received('/flaky').length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(eventIds('/flaky')).toEqual([first, first, second]);
    const [firstTry, retry] = receiver.received('/flaky');
    expect(retry!.body).toBe(firstTry!.body);

    const log = await waitFor('three logged attempts', async () => {
      const { data } = await attemptLog(endpoint.id);
      return data.length === 3 && data;
    });
    expect(
      log.map((entry) => [entry.eventId, entry.eventType, entry.attempt, entry.statusCode, entry.error, entry.outcome]),
    ).toEqual([
      [second, 'payment.succeeded', 1, 200, null, 'succeeded'],
      [first, 'payment.processing', 2, 200, null, 'succeeded'],
      [first, 'payment.processing', 1, 500, null, 'will_retry'],
    ]);
    for (const entry of log) {
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(entry.attemptedAt)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(new Set(log.map((entry) => entry.id)).size).toBe(3);

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await attemptLog(endpoint.id, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(1);
      paged.push(...page.data.map((entry) => entry.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(log.map((entry) => entry.id));

    // The failed attempt is said in the process log at warn, with ids and the answer's status only.
    const retrying = logged.filter((line) => line.event === 'webhook.delivery_retrying' && line.eventId === first);
    expect(retrying).toEqual([
      expect.objectContaining({ level: 40, endpointId: endpoint.id, attempts: 1, statusCode: 500 }),
    ]);
    expect(JSON.stringify(retrying)).not.toContain(receiver.urlFor('/flaky'));
  });

  it('holds back only the refused event’s own object: another payment’s event goes first', async () => {
    receiver.on('/per-object', (_request, count) => (count === 1 ? 500 : 200));
    await register('/per-object', ['payment.processing', 'payment.succeeded']);
    const held = await emit('payment.processing', { paymentId: 'pay_held', status: 'processing' });
    await waitFor('the refused first attempt', () => receiver.received('/per-object').length >= 1);
    const heldLater = await emit('payment.succeeded', { paymentId: 'pay_held', status: 'succeeded' });
    const other = await emit('payment.succeeded', { paymentId: 'pay_other', status: 'succeeded' });
    await waitFor('four requests', () => receiver.received('/per-object').length >= 4, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(eventIds('/per-object')).toEqual([held, other, held, heldLater]);
  });

  it('never delivers an event whose transaction rolled back', async () => {
    await register('/rollback');
    await expect(
      server.db.transaction().execute(async (trx) => {
        await recordEvent(trx, {
          partnerId: partner.partnerId,
          merchantId: null,
          type: 'payment.succeeded',
          object: { id: 'pay_ghost' },
        });
        throw new Error('the payment update failed');
      }),
    ).rejects.toThrow('the payment update failed');
    const committed = await emit('payment.succeeded', { id: 'pay_real' });
    await waitFor('the committed event', () => receiver.received('/rollback').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(eventIds('/rollback')).toEqual([committed]);
    expect(receiver.received('/rollback').some((request) => request.body.includes('pay_ghost'))).toBe(false);
  });

  it('gives up after the retry window and logs every attempt', async () => {
    receiver.on('/down', () => 503);
    const endpoint = await register('/down');
    const id = await emit();
    const delivery = await waitFor(
      'the delivery to be given up',
      async () => {
        const row = await server.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('event_id', '=', id)
          .where('endpoint_id', '=', endpoint.id)
          .executeTakeFirstOrThrow();
        return row.status === 'failed' && row;
      },
      20_000,
    );
    const requests = receiver.received('/down');
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(delivery.attempts).toBe(requests.length);
    const { data } = await attemptLog(endpoint.id);
    expect(data.map((entry) => entry.attempt)).toEqual(requests.map((_request, index) => requests.length - index));
    expect(data.every((entry) => entry.statusCode === 503)).toBe(true);
    expect(data.map((entry) => entry.outcome)).toEqual(['given_up', ...Array(requests.length - 1).fill('will_retry')]);
  });

  it('a receiver that never answers slows neither the API nor other endpoints, and its timeouts are logged', async () => {
    receiver.on('/hang', () => 'hang');
    const hanging = await register('/hang');
    const healthy = await register('/healthy', ['payment.failed']);
    await emit();
    await emit();
    await waitFor('a hanging delivery', () => receiver.received('/hang').length >= 1);

    const started = performance.now();
    const listed = await call(server, '/v1/webhooks', { headers: { 'api-key': partner.apiKey } });
    const created = await emit('payment.failed');
    const elapsed = performance.now() - started;
    expect(listed.status).toBe(200);
    expect(elapsed).toBeLessThan(ATTEMPT_TIMEOUT_MS / 2);
    await waitFor('the other endpoint', () => receiver.received('/healthy').length === 1, ATTEMPT_TIMEOUT_MS);
    expect(eventIds('/healthy')).toEqual([created]);
    expect(receiver.received('/hang').length).toBe(1);

    const log = await waitFor('a logged timeout', async () => {
      const { data } = await attemptLog(hanging.id);
      return data.length >= 1 && data;
    });
    expect(log[log.length - 1]).toMatchObject({
      attempt: 1,
      statusCode: null,
      error: 'no response within 1.5 s',
      outcome: 'will_retry',
    });
    expect(log[log.length - 1]!.durationMs).toBeGreaterThanOrEqual(ATTEMPT_TIMEOUT_MS - 50);
    expect((await attemptLog(healthy.id)).data).toHaveLength(1);

    // Deleting the endpoint drops what is still pending for it.
    await call(server, `/v1/webhooks/${hanging.id}`, { method: 'DELETE', headers: { 'api-key': partner.apiKey } });
    await waitFor(
      'pending deliveries to be cancelled',
      async () => {
        const rows = await server.db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('endpoint_id', '=', hanging.id)
          .execute();
        return rows.every((row) => row.status !== 'pending');
      },
      20_000,
    );
  });

  it('logs to a key only the attempts of events its scopes read: no payment event without payments', async () => {
    const endpoint = await register('/mixed', ['payment.succeeded', 'merchant.updated']);
    const paymentEvent = await emit('payment.succeeded', { id: 'pay_mixed', amount: '1250' });
    const merchantEvent = await emit('merchant.updated', { id: 'mrch_mixed' });
    await waitFor('both deliveries', () => receiver.received('/mixed').length === 2);
    const everything = await waitFor('both logged attempts', async () => {
      const { data } = await attemptLog(endpoint.id);
      return data.length === 2 && data;
    });
    expect(everything.map((entry) => entry.eventId).sort()).toEqual([paymentEvent, merchantEvent].sort());
    const merchantsOnly = await createApiKey(server.db, partner.partnerId, ['merchants']);
    const { data } = await attemptLog(endpoint.id, '', merchantsOnly.apiKey);
    expect(data.map((entry) => [entry.eventId, entry.eventType])).toEqual([[merchantEvent, 'merchant.updated']]);
  });

  it('refuses private addresses unless allowed, and untrusted certificates', async () => {
    receiver.on('/private', () => 200);
    const production = { allowPrivateHosts: false, timeoutMs: ATTEMPT_TIMEOUT_MS };
    const send = (url: string, options: Parameters<typeof sendWebhookRequest>[3]) =>
      sendWebhookRequest(url, '{}', {}, options);
    expect(await send(receiver.urlFor('/private'), production)).toMatchObject({
      error: 'the URL points to a private address',
    });
    const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];
    expect(await send(`https://hooks.example:${receiver.port}/private`, { ...production, lookup })).toMatchObject({
      error: 'the host name resolves to a private address',
    });
    expect(
      await send(receiver.urlFor('/private'), { allowPrivateHosts: true, timeoutMs: ATTEMPT_TIMEOUT_MS }),
    ).toMatchObject({
      error: 'the receiver did not present a valid TLS certificate',
    });
    expect(receiver.received('/private')).toEqual([]);
    expect(
      await send(receiver.urlFor('/private'), {
        allowPrivateHosts: true,
        extraCaCertificates: [certificate.cert],
        timeoutMs: ATTEMPT_TIMEOUT_MS,
      }),
    ).toMatchObject({ statusCode: 200 });
  });
});
