import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../src/jobs/queue.ts';
import { recordEvent } from '../../src/webhooks/events.ts';
import { createWebhookTasks } from '../../src/webhooks/tasks.ts';
import { createIsolatedDatabase } from '../support/isolatedDatabase.ts';
import { createTestCertificate, type TestCertificate } from '../support/logoServer.ts';
import { scrape } from '../support/prometheusText.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '../webhooks/support.ts';

describe('/metrics: the job queue and webhook deliveries, read from the database', () => {
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let certificate: TestCertificate;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let partner: TestPartner;
  let workers: Workers | undefined;

  beforeAll(async () => {
    // A database of its own: the gauges count every job and delivery in it.
    [database, certificate] = await Promise.all([createIsolatedDatabase(), createTestCertificate()]);
    receiver = await startWebhookReceiver(certificate);
    receiver.on('/down', () => 503);
    server = await startTestServer({
      databaseUrl: database.url,
      env: { HEALTH_METRICS_INTERVAL_MS: '0' },
      context: {
        webhookDelivery: {
          allowPrivateHosts: true,
          extraCaCertificates: [certificate.cert],
          // The retry after the first failure waits long enough to be seen pending.
          retry: { firstDelayMs: 600_000, maxDelayMs: 600_000, giveUpAfterMs: 3_600_000, jitter: 0 },
        },
      },
    });
    partner = await newPartner(server.db);
  });
  afterAll(async () => {
    await workers?.stop();
    await server?.close();
    await receiver?.close();
    await database?.drop();
  });

  it('shows nothing pending in an idle service', async () => {
    const metrics = await scrape(server);
    expect(metrics.value('paygate_webhook_deliveries_pending', { state: 'first_attempt' })).toBe(0);
    expect(metrics.value('paygate_webhook_deliveries_pending', { state: 'retrying' })).toBe(0);
    expect(metrics.value('paygate_webhook_oldest_pending_seconds')).toBe(0);
    expect(metrics.value('paygate_job_queue_jobs', { task: 'webhooks_deliver' })).toBeUndefined();
    expect(metrics.value('paygate_health_reading_up')).toBe(1);
  });

  it('counts a delivery waiting for a worker as pending and its job as due, and how long it has waited', async () => {
    const endpoint = await call(server, '/v1/webhooks', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { url: receiver.urlFor('/down'), events: ['payment.succeeded'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const recordedAt = Date.now();
    await server.db.transaction().execute((trx) =>
      recordEvent(trx, {
        partnerId: partner.partnerId,
        merchantId: null,
        type: 'payment.succeeded',
        object: { id: 'pay_metrics' },
      }),
    );

    const metrics = await scrape(server);
    const waited = (Date.now() - recordedAt) / 1000;
    expect(metrics.value('paygate_webhook_deliveries_pending', { state: 'first_attempt' })).toBe(1);
    expect(metrics.value('paygate_webhook_deliveries_pending', { state: 'retrying' })).toBe(0);
    expect(metrics.value('paygate_job_queue_jobs', { task: 'webhooks_deliver', state: 'due' })).toBe(1);
    expect(metrics.value('paygate_job_queue_jobs', { task: 'webhooks_deliver', state: 'running' })).toBe(0);
    for (const age of [
      metrics.value('paygate_webhook_oldest_pending_seconds'),
      metrics.value('paygate_job_queue_oldest_due_seconds', { task: 'webhooks_deliver' }),
    ]) {
      expect(age).toBeGreaterThanOrEqual(0);
      expect(age).toBeLessThanOrEqual(waited + 1);
    }
  });

  it('counts the delivery as retrying once its endpoint fails, and its job no longer as due', async () => {
    workers = await startWorkers(database.url, createWebhookTasks(server.ctx));
    await waitFor('the endpoint to be tried', () => receiver.received('/down').length === 1);
    const metrics = await waitFor('the delivery retrying', async () => {
      const current = await scrape(server);
      return current.value('paygate_webhook_deliveries_pending', { state: 'retrying' }) === 1 && current;
    });
    expect(metrics.value('paygate_webhook_deliveries_pending', { state: 'first_attempt' })).toBe(0);
    expect(metrics.value('paygate_job_queue_jobs', { task: 'webhooks_deliver', state: 'due' }) ?? 0).toBe(0);
    expect(metrics.value('paygate_job_queue_oldest_due_seconds', { task: 'webhooks_deliver' }) ?? 0).toBe(0);
  });

  it('reads the database again only once its last reading is older than HEALTH_METRICS_INTERVAL_MS', async () => {
    const cached = await startTestServer({ databaseUrl: database.url, env: { HEALTH_METRICS_INTERVAL_MS: '3600000' } });
    try {
      const pending = async (target: TestServer) =>
        (await scrape(target)).value('paygate_webhook_deliveries_pending', { state: 'retrying' });
      expect(await pending(cached)).toBe(1);
      await server.db
        .updateTable('webhook_deliveries')
        .set({ status: 'cancelled', completed_at: new Date() })
        .where('status', '=', 'pending')
        .execute();
      expect(await pending(server)).toBe(0);
      expect(await pending(cached)).toBe(1);
    } finally {
      await cached.close();
    }
  });

  it('still serves /metrics without the database, the reading marked failed and its gauges left out', async () => {
    const gone = await createIsolatedDatabase();
    const orphan = await startTestServer({ databaseUrl: gone.url, env: { HEALTH_METRICS_INTERVAL_MS: '0' } });
    try {
      expect((await scrape(orphan)).value('paygate_health_reading_up')).toBe(1);
      await gone.drop();
      const metrics = await scrape(orphan);
      expect(metrics.value('paygate_health_reading_up')).toBe(0);
      expect(metrics.value('paygate_webhook_deliveries_pending', { state: 'retrying' })).toBeUndefined();
      expect(metrics.value('paygate_chain_followed', { network: 'eip155:1' })).toBeUndefined();
      expect(metrics.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    } finally {
      await orphan.close();
    }
  });
});
