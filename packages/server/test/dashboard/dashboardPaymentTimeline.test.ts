import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookTasks } from '../../src/webhooks/tasks.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { createIsolatedDatabase } from '../support/isolatedDatabase.ts';
import { createTestCertificate } from '../support/logoServer.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '../webhooks/support.ts';
import { saveDashboardScreenshots } from './support/dashboardBrowser.ts';
import { consoleContext, expectAccessible, signedInDashboard } from './support/dashboardSession.ts';

describe("dashboard payment timeline in Chromium: a payment's events, their deliveries, and a resend", () => {
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let partner: TestPartner;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleProblems: string[] = [];

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
    partner = await newPartner(server.db, 'Timeline partner');
    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    page = await signedInDashboard(server, context, partner.partnerId);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await receiver?.close();
    await database?.drop();
  });

  it('shows payment.created delivered to the endpoint, and sends it again from the page', async () => {
    const merchantId = (await createMerchant(server, partner.apiKey)).id;
    const endpoint = await call(server, '/v1/webhooks', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { url: receiver.urlFor('/timeline'), events: ['payment.created'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId, { referenceId: 'timeline-page-1' });
    const [first] = await waitFor(
      'the payment.created delivery',
      () => receiver.received('/timeline').length >= 1 && receiver.received('/timeline'),
    );
    const event = JSON.parse(first!.body) as { id: string; type: string };
    expect(event.type).toBe('payment.created');

    await page.goto(`${server.url}/dashboard/payments/${paymentId}?merchantId=${merchantId}`);
    await page.getByRole('heading', { name: 'Timeline', level: 2 }).waitFor();
    const entry = page.locator(`li[data-event-id="${event.id}"]`);
    await expect.poll(() => entry.textContent()).toContain('Delivered, 1 attempt');
    expect(await entry.textContent()).toContain(receiver.urlFor('/timeline'));
    // To the second: a payment's events often follow each other within a minute.
    const shown = await entry.locator('time').first();
    const createdAt = new Date((await shown.getAttribute('datetime')) as string);
    expect(await shown.textContent()).toContain(
      createdAt.toLocaleTimeString('en-US', { timeZone: 'UTC', hour: 'numeric', minute: '2-digit', second: '2-digit' }),
    );
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'payment-timeline');

    await entry
      .getByRole('button', { name: `Resend payment.created to ${receiver.urlFor('/timeline')}` })
      .first()
      .click();
    await expect
      .poll(() => page.locator('section[aria-labelledby="timeline-heading"]').getByRole('status').textContent())
      .toBe(`payment.created is sent to ${receiver.urlFor('/timeline')} again.`);
    const [, again] = await waitFor(
      'the redelivery',
      () => receiver.received('/timeline').length >= 2 && receiver.received('/timeline'),
    );
    expect(JSON.parse(again!.body).id).toBe(event.id);
    // The page follows the new delivery until it is delivered.
    await expect.poll(() => entry.locator('li[data-delivery-id]').count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => entry.textContent(), { timeout: 15_000 }).toMatch(/Delivered, 1 attempt \(sent again\)/);
    expect(consoleProblems).toEqual([]);
  });
});
