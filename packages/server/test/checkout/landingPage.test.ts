import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from '../dashboard/support/dashboardBrowser.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { launchChromium, recordTraffic, saveScreenshots, VIEWPORTS } from './support/browser.ts';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const MERCHANT_NAME = 'Landing Corner Shop';

describe('landing page at / in Chromium', () => {
  let server: TestServer;
  let partner: TestPartner;
  let paymentId: string;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db, 'Landing partner');
    const merchant = await createMerchant(server, partner.apiKey, {
      merchantName: MERCHANT_NAME,
      merchantEmail: 'owner@landing-shop.example',
    });
    ({ paymentId } = await createPayment(server, partner.apiKey, merchant.id, {
      amount: { unit: 'iso4217/USD', value: '1250' },
    }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('says what the service is, its version, where its API reference, consoles and health check are, and how to get a key', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone });
    const traffic = recordTraffic(context);
    const page = await context.newPage();
    const response = await page.goto(`${server.url}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.locator('h1').textContent()).toBe('paygate');
    expect(await page.title()).toBe(`paygate ${PACKAGE_VERSION}`);
    expect(await page.locator('.lead').textContent()).toBe(
      `This is a paygate payment service, version ${PACKAGE_VERSION}.`,
    );

    const links = await page
      .locator('main a')
      .evaluateAll((anchors) => anchors.map((anchor) => [anchor.textContent, (anchor as HTMLAnchorElement).href]));
    expect(links).toEqual([
      ['API reference', `${server.url}/docs`],
      ['openapi.json', `${server.url}/openapi.json`],
      ['Partner dashboard', `${server.url}/dashboard`],
      ['Operator console', `${server.url}/operator`],
      ['Health check', `${server.url}/healthz`],
    ]);
    const text = ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');
    for (const command of [
      'npx paygate partner list',
      'npx paygate key create --partner <partnerId>',
      'npx paygate partner create --name <name>',
      'npx paygate dashboard-link --partner <partnerId>',
      'npx paygate operator-link',
    ]) {
      expect(text).toContain(command);
    }
    expect(text).toContain(`${server.url}/pay_…`);
    // Nothing from the database: no partner, key, merchant or payment.
    for (const stored of [partner.partnerId, partner.apiKey, MERCHANT_NAME, paymentId]) {
      expect(text).not.toContain(stored);
      expect(await page.content()).not.toContain(stored);
    }

    expect(await seriousAxeViolations(page)).toEqual([]);
    await saveScreenshots(page, 'landing');
    // Its own stylesheet and icon only, no script, nothing refused by its Content-Security-Policy.
    expect(await page.locator('script').count()).toBe(0);
    expect(traffic.consoleErrors).toEqual([]);
    expect(traffic.requests.every((url) => url.startsWith(`${server.url}/`))).toBe(true);
    expect(traffic.requests.some((url) => /\/assets\/checkout\/checkout\.[0-9a-f]{16}\.css$/.test(url))).toBe(true);

    // Each place it names answers in the browser.
    for (const [name, href] of links) {
      const target = await context.newPage();
      const answer = await target.goto(href as string);
      expect(answer?.status(), `${name} ${href}`).toBe(200);
      await target.close();
    }
    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL(`${server.url}/docs**`);
    await context.close();
  });

  it('keeps /?pid=<paymentId> the payment’s checkout page, and an unknown or empty pid not found', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone });
    const page = await context.newPage();
    const paying = await page.goto(`${server.url}/?pid=${paymentId}`);
    expect(paying?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe(MERCHANT_NAME);
    expect(await page.locator('.reference code').textContent()).toBe(paymentId);
    expect(await page.locator('main').textContent()).toContain('$12.50');

    for (const link of [`${server.url}/?pid=unknown`, `${server.url}/?pid=`]) {
      const missing = await page.goto(link);
      expect(missing?.status(), link).toBe(404);
      expect(await page.locator('h1').textContent()).toBe('Payment not found');
    }
    await context.close();
  });

  it('is at / also when the checkout has a path of its own, whose root stays the checkout’s', async () => {
    const underPath = await startTestServer({ env: { CHECKOUT_URL: 'http://127.0.0.1:1/pay' } });
    try {
      underPath.ctx.config.checkoutUrl = `${underPath.url}/pay`;
      const landing = await call(underPath, '/');
      expect(landing.status).toBe(200);
      expect(landing.text).toContain('<p class="lead">This is a paygate payment service, version');
      expect(landing.text).toContain(`<code>${underPath.url}/pay/pay_…</code>`);
      const stylesheet = /<link rel="stylesheet" href="(\/pay\/assets\/checkout\/checkout\.[0-9a-f]{16}\.css)">/.exec(
        landing.text,
      )?.[1];
      expect((await call(underPath, stylesheet ?? '/pay/assets/missing.css')).status).toBe(200);
      for (const path of ['/pay/', '/pay']) {
        const checkoutRoot = await call(underPath, path);
        expect([checkoutRoot.status, checkoutRoot.text.includes('<h1>Payment not found</h1>')], path).toEqual([
          404,
          true,
        ]);
      }
    } finally {
      await underPath.close();
    }
  });
});
