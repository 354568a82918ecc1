import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookTasks } from '../../src/webhooks/tasks.ts';
import { verifyWebhookSignature } from '@paygate/client/webhooks';
import { decodeQr, launchChromium } from '../checkout/support/browser.ts';
import { createIsolatedDatabase } from '../support/isolatedDatabase.ts';
import { createTestCertificate } from '../support/logoServer.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '../webhooks/support.ts';
import { saveDashboardScreenshots } from './support/dashboardBrowser.ts';
import { consoleContext, expectAccessible, signedInDashboard } from './support/dashboardSession.ts';

describe('dashboard merchants and developers in Chromium: merchants, webhook endpoints and their deliveries', () => {
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let partner: TestPartner;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchantId: string;
  let signingSecret: string;
  const consoleProblems: string[] = [];

  const api = (path: string) => call(server, path, { headers: { 'api-key': partner.apiKey } });
  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true });

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
    partner = await newPartner(server.db, 'Merchants partner');
    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await signedInDashboard(server, context, partner.partnerId);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await receiver?.close();
    await database?.drop();
  });

  it('adds a merchant once; a logo the API refuses is said in words', async () => {
    await nav('Merchants').click();
    await page.getByRole('heading', { name: 'Merchants', level: 1 }).waitFor();
    await page.getByText('No merchants yet.').waitFor();
    await page.getByText('Add a merchant').click();
    await page.getByLabel('Name').fill('  Harbour Café  ');
    await page.getByLabel('Email').fill('owner@harbour.example');
    await page.getByLabel('Logo URL').fill('http://harbour.example/logo.png');
    await page.getByRole('button', { name: 'Add merchant' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^Not added: .*iconUrl/);
    expect((await api('/v1/merchants')).body.data).toEqual([]);
    await expectAccessible(page);

    await page.getByLabel('Logo URL').fill('');
    await page.getByRole('button', { name: 'Add merchant' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Merchant Harbour Café added.');
    const listed = (await api('/v1/merchants')).body.data as { id: string; name: string }[];
    expect(listed.map((merchant) => merchant.name)).toEqual(['Harbour Café']);
    merchantId = listed[0]!.id;
    await expect
      .poll(() =>
        page
          .locator('tr[data-merchant-id]')
          .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-merchant-id'))),
      )
      .toEqual([merchantId]);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'merchants');
  });

  it('makes a one-off payment of the merchant: a refused amount said in words, its link to copy and scan, made once', async () => {
    await page.locator('tr[data-merchant-id]').getByRole('link', { name: 'Harbour Café' }).click();
    await page.getByRole('heading', { name: 'Harbour Café', level: 1 }).waitFor();
    await page.getByText('New payment').click();
    await page.getByLabel('Amount').fill('12.345');
    await page.getByLabel('Reference').fill('invoice-7');
    await page.getByRole('button', { name: 'Create payment' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Not created: Enter the amount in USD as digits, with at most 2 after the point, more than 0.');
    const payments = async () =>
      (await call(server, `/v1/payments?merchantId=${merchantId}`, { headers: { 'api-key': partner.apiKey } })).body
        .data as { paymentId: string; fiatAmount: { unit: string; value: string }; referenceId: string }[];
    expect(await payments()).toEqual([]);

    await page.getByLabel('Amount').fill('12.34');
    await page.getByRole('button', { name: 'Create payment' }).click();
    const link = page.locator('[data-payment-link]');
    await link.waitFor();
    const [made] = await payments();
    expect(made).toMatchObject({ fiatAmount: { unit: 'iso4217/USD', value: '1234' }, referenceId: 'invoice-7' });
    const gatewayUrl = await link.textContent();
    expect(gatewayUrl).toBe(`${server.ctx.config.checkoutUrl}/${made!.paymentId}`);
    const qr = page.getByRole('img', { name: 'QR code of the payment link' });
    await qr.waitFor();
    expect(await decodeQr(await qr.screenshot())).toBe(gatewayUrl);
    await page.getByRole('button', { name: 'Copy payment link' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(gatewayUrl);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'merchant-new-payment');

    // Sent again, the same reference is the same payment: the buyer is never asked twice.
    await page.getByRole('button', { name: 'Create payment' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Create payment' }).isEnabled()).toBe(true);
    expect((await payments()).map((payment) => payment.paymentId)).toEqual([made!.paymentId]);
    expect(await link.textContent()).toBe(gatewayUrl);
    await nav('Merchants').click();
  });

  it('makes a payment link of the merchant, shares it, sees its payments, and turns it off', async () => {
    await page.locator('tr[data-merchant-id]').getByRole('link', { name: 'Harbour Café' }).click();
    await page.getByRole('heading', { name: 'Harbour Café', level: 1 }).waitFor();
    const section = page.locator('details.payment-links');
    await section.locator('summary').click();
    await expect.poll(() => section.getByText('No payment links yet.').isVisible()).toBe(true);
    await section.getByLabel('What the buyer pays for').fill('Flat white');
    await section.getByLabel('Price', { exact: true }).fill('4,5');
    await section.getByRole('button', { name: 'Create link' }).click();
    await expect
      .poll(() => section.getByRole('alert').textContent())
      .toBe('Not created: Enter amounts in USD as digits, with at most 2 after the point, more than 0.');
    await section.getByLabel('Price', { exact: true }).fill('4.50');
    await section.getByLabel('Most a buyer may take').fill('6');
    await section.getByRole('button', { name: 'Create link' }).click();
    const row = section.locator('li.payment-link');
    await row.waitFor();
    const links = (await api(`/v1/payment-links?merchantId=${merchantId}`)).body.data as {
      id: string;
      url: string;
      amount: { value: string };
      quantity: { maximum: number };
    }[];
    expect(links).toEqual([
      expect.objectContaining({ amount: { unit: 'iso4217/USD', value: '450' }, quantity: { maximum: 6 } }),
    ]);
    const [link] = links;
    expect(await row.textContent()).toContain('4.50 USD each (up to 6)');
    await row.getByRole('button', { name: 'QR code' }).click();
    const qr = row.getByRole('img', { name: 'QR code of the payment link for Flat white' });
    await qr.waitFor();
    expect(await decodeQr(await qr.screenshot())).toBe(link!.url);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'merchant-payment-links');

    // A buyer's visit makes a payment named by the link, which its payments list shows.
    const visit = await fetch(link!.url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'quantity=2',
    });
    expect(visit.status).toBe(303);
    await row.getByRole('link', { name: 'Payments and revenue' }).click();
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    await expect.poll(() => page.locator('[data-link-filter]').textContent()).toContain(link!.id);
    await expect.poll(() => page.locator('tr[data-payment-id]').count()).toBe(1);
    await expectAccessible(page);
    await page.goBack();

    await section.locator('summary').waitFor();
    if ((await section.getAttribute('open')) === null) await section.locator('summary').click();
    await section.getByRole('button', { name: 'Turn off' }).click();
    await expect.poll(() => row.locator('.status').textContent()).toBe('Off');
    expect((await api(`/v1/payment-links/${link!.id}`)).body).toMatchObject({ active: false, status: 'inactive' });
    expect((await fetch(link!.url)).status).toBe(410);
    await nav('Merchants').click();
  });

  it('adds a webhook endpoint: its signing secret shown once, then its page with no deliveries yet', async () => {
    await nav('Developers').click();
    await page.getByRole('heading', { name: 'Developers', level: 1 }).waitFor();
    await page.getByText('Add a webhook endpoint').click();
    await page.getByLabel('URL').fill(receiver.urlFor('/hooks'));
    await page.getByRole('checkbox', { name: 'merchant.updated' }).check();
    await page.getByRole('checkbox', { name: 'payment.created' }).check();
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'developers-add-endpoint');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint added' }).waitFor();
    signingSecret = await page.getByLabel('Signing secret').inputValue();
    expect(signingSecret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(signingSecret);
    await page.getByRole('button', { name: 'Done, it is kept' }).click();
    const endpoints = (await api('/v1/webhooks')).body.data as { id: string; url: string; events: string[] }[];
    expect(endpoints.map((endpoint) => [endpoint.url, endpoint.events])).toEqual([
      [receiver.urlFor('/hooks'), ['payment.created', 'merchant.updated']],
    ]);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'developers');

    await page.getByRole('link', { name: receiver.urlFor('/hooks') }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor();
    await page.getByText('No deliveries yet').waitFor();
  });

  it("edits a merchant's name; the merchant.updated event it sends shows among the endpoint's deliveries, and is resent", async () => {
    await nav('Merchants').click();
    await page.getByRole('link', { name: 'Harbour Café' }).click();
    await page.getByRole('heading', { name: 'Harbour Café', level: 1 }).waitFor();
    expect(await page.locator('.facts').textContent()).toContain(merchantId);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Nothing to save: change a field first.');
    await page.getByLabel('Name').fill('Harbour Café & Bakery');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.locator('form[aria-labelledby="edit-merchant-heading"]').getByRole('status').textContent())
      .toBe('Saved.');
    await page.getByRole('heading', { name: 'Harbour Café & Bakery', level: 1 }).waitFor();
    expect((await api(`/v1/merchants/${merchantId}`)).body.merchant.name).toBe('Harbour Café & Bakery');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'merchant');

    const [delivered] = await waitFor(
      'the merchant.updated delivery',
      () => receiver.received('/hooks').length >= 1 && receiver.received('/hooks'),
    );
    const event = JSON.parse(delivered!.body);
    expect([event.type, event.data.object.name]).toEqual(['merchant.updated', 'Harbour Café & Bakery']);
    // Signed with the secret the dashboard showed.
    expect(
      verifyWebhookSignature({
        payload: delivered!.body,
        header: String(delivered!.headers['pay-signature']),
        secret: signingSecret,
      }),
    ).toBe(true);

    await nav('Developers').click();
    await page.getByRole('link', { name: receiver.urlFor('/hooks') }).click();
    const row = page.locator(`tr[data-event-id="${event.id}"]`);
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    expect(await row.locator('td[data-label="Outcome"]').textContent()).toBe('Delivered');
    expect(await row.locator('td[data-label="Answer"]').textContent()).toMatch(/^HTTP 200 in \d+ ms$/);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'webhook-endpoint');

    await row.getByRole('button', { name: `Resend event ${event.id}` }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe(`Event ${event.id} is sent again; its attempt shows here.`);
    await waitFor('the redelivery', () => receiver.received('/hooks').length >= 2);
    expect(JSON.parse(receiver.received('/hooks')[1]!.body).id).toBe(event.id);
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(2);
    expect(await row.first().locator('td[data-label="Attempt"]').textContent()).toBe('1 (resent)');
  });

  it('sends the endpoint a test event, which the receiver gets signed and the deliveries show', async () => {
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Test event evt_\w+ is sent; its attempt/);
    const eventId = /evt_\w+/.exec((await page.getByRole('status').textContent()) ?? '')![0];
    const [delivered, ...again] = await waitFor('the test event', () => {
      const requests = receiver.received('/hooks').filter((request) => request.headers['pay-event-id'] === eventId);
      return requests.length > 0 && requests;
    });
    expect(again).toEqual([]);
    expect(JSON.parse(delivered!.body).type).toBe('webhook.test');
    expect(
      verifyWebhookSignature({
        payload: delivered!.body,
        header: String(delivered!.headers['pay-signature']),
        secret: signingSecret,
      }),
    ).toBe(true);
    const row = page.locator(`tr[data-event-id="${eventId}"]`);
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    expect(await row.locator('td[data-label="Event"] code').first().textContent()).toBe('webhook.test');
    expect(await row.locator('td[data-label="Outcome"]').textContent()).toBe('Delivered');
    await expectAccessible(page);
  });

  it('deletes the endpoint and the merchant, each after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete endpoint…' }).click();
    await page.getByRole('group', { name: /^Delete the endpoint/ }).waitFor();
    await page.getByRole('button', { name: 'Yes, delete the endpoint' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint deleted', level: 1 }).waitFor();
    expect((await api('/v1/webhooks')).body.data).toEqual([]);

    await page.goto(`${server.url}/dashboard/merchants/${merchantId}`);
    await page.getByRole('button', { name: 'Delete merchant…' }).click();
    await page.getByRole('group', { name: /^Delete Harbour Café & Bakery\?/ }).waitFor();
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'merchant-delete-confirm');
    await page.getByRole('button', { name: 'Keep the merchant' }).click();
    expect((await api(`/v1/merchants/${merchantId}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete merchant…' }).click();
    await page.getByRole('button', { name: 'Yes, delete the merchant' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Harbour Café & Bakery is deleted\./);
    expect((await api(`/v1/merchants/${merchantId}`)).status).toBe(404);
    await nav('Merchants').click();
    await page.getByText('No merchants yet.').waitFor();
  });

  it('keeps to its own scripts: no policy violation or script error', () => {
    expect(consoleProblems).toEqual([]);
  });
});
