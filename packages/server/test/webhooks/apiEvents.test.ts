import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookTasks } from '../../src/webhooks/tasks.ts';
import { verifyWebhookSignature } from '@paygate/client/webhooks';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { createTestCertificate } from '../support/logoServer.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from './support.ts';
import { createIsolatedDatabase } from '../support/isolatedDatabase.ts';

describe('webhooks for changes made through the API', () => {
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    const certificate = await createTestCertificate();
    database = await createIsolatedDatabase();
    receiver = await startWebhookReceiver(certificate);
    server = await startTestServer({
      databaseUrl: database.url,
      context: { webhookDelivery: { allowPrivateHosts: true, extraCaCertificates: [certificate.cert] } },
      tasks: (ctx) => createWebhookTasks(ctx),
    });
    partner = await newPartner(server.db);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await database?.drop();
  });

  it('delivers merchant.updated, payment.created and payment.cancelled, signed and in order', async () => {
    const endpoint = await call(server, '/v1/webhooks', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { url: receiver.urlFor('/events'), events: ['merchant.updated', 'payment.created', 'payment.cancelled'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const { secret } = endpoint.body.webhook as { secret: string };

    const merchant = await createMerchant(server, partner.apiKey);
    await call(server, `/v1/merchants/${merchant.id}`, {
      method: 'PATCH',
      headers: { 'api-key': partner.apiKey },
      body: { merchantName: 'Renamed Shop' },
    });
    const { paymentId } = await createPayment(server, partner.apiKey, merchant.id);
    await call(server, `/v1/payments/${paymentId}/cancel`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchant.id },
    });

    const received = await waitFor(
      'three deliveries',
      () => receiver.received('/events').length >= 3 && receiver.received('/events'),
    );
    const events = received.map((request) => JSON.parse(request.body));
    expect(events.map((event) => event.type)).toEqual(['merchant.updated', 'payment.created', 'payment.cancelled']);
    expect(events[0].data.object).toMatchObject({ id: merchant.id, name: 'Renamed Shop' });
    expect(events[1].data.object).toMatchObject({
      paymentId,
      status: 'requires_action',
      fiatAmount: { unit: 'iso4217/USD', value: '1000' },
    });
    expect(events[2].data.object).toMatchObject({ paymentId, status: 'failed', isTerminal: true });
    for (const request of received) {
      expect(
        verifyWebhookSignature({ payload: request.body, header: String(request.headers['pay-signature']), secret }),
      ).toBe(true);
      expect(request.headers['pay-event-id']).toBe(JSON.parse(request.body).id);
    }
  });
});
