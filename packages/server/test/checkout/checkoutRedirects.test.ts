import type { Browser, BrowserContext, Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/partners/partners.ts';
import { expirePaymentNow } from '../support/expirePaymentNow.ts';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { createTestCertificate, type LogoServer, startLogoServer } from '../support/logoServer.ts';
import { ManualClock } from '../support/manualClock.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';
import { launchChromium, recordTraffic, VIEWPORTS } from './support/browser.ts';

const PREVIEW = { 'pay-version': '2026-02-19.preview' };

/** The way back to the merchant of a payment created with POST /v1/payments and checkout redirects (2026-02-19.preview). */
describe('checkout page redirects of POST /v1/payments, in Chromium on the devnet', () => {
  let testService: DevnetService;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let walletHeaders: Record<string, string>;
  let browser: Browser;
  let merchantSite: LogoServer;
  let siteUrl: string;
  const clock = new ManualClock();

  const transition = () => ({ db: server.db, chains: server.ctx.chains, baseUrl: server.url, now: clock.now() });
  const checkout = () => ({ successUrl: `${siteUrl}/thanks?order=7`, errorUrl: `${siteUrl}/sorry` });
  const visibleHeading = (page: Page) => page.locator('[data-view]:not([hidden]) h2');

  /** A payment created through POST /v1/payments in the preview version, with the merchant site's redirects. */
  async function previewPayment(body: Record<string, unknown> = {}) {
    const result = await call(server, '/v1/payments', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId, ...PREVIEW },
      body: {
        amount: { unit: 'iso4217/USD', value: '1000' },
        referenceId: `order-${Math.random()}`,
        checkout: checkout(),
        ...body,
      },
    });
    expect(result.status, result.text).toBe(201);
    return result.body as { paymentId: string; gatewayUrl: string };
  }

  async function openPage(link: string): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, ignoreHTTPSErrors: true });
    const { requests } = recordTraffic(context);
    const page = await context.newPage();
    const response = await page.goto(link);
    expect(response?.status()).toBe(200);
    return { context, page, requests };
  }

  /** Resolves once the page's script follows the status with a long-poll, so a change reaches it live. */
  async function followingStatus(requests: string[], paymentId: string): Promise<void> {
    await expect
      .poll(() => requests.some((url) => url.includes(`/v1/gateway/payment/${paymentId}/status?maxPollMs=25000`)), {
        timeout: 10_000,
      })
      .toBe(true);
  }

  /** The merchant's site was asked for exactly this page: the buyer arrived there. */
  async function arrivedAt(page: Page, pathAndQuery: string): Promise<void> {
    await page.waitForURL(`${siteUrl}${pathAndQuery}`, { timeout: 30_000 });
    expect(merchantSite.requestedPaths()).toContain(pathAndQuery);
  }

  async function payInUsdc(paymentId: string): Promise<void> {
    const chain = testService.devnet.manifest.evm[0]!;
    const alice = testService.devnet.manifest.buyers.find((buyer) => buyer.name === 'alice')!;
    const options = await call(server, `/v1/gateway/payment/${paymentId}/options`, {
      method: 'POST',
      headers: walletHeaders,
      body: { accounts: [`${chain.caip2}:${alice.evmAddress}`] },
    });
    expect(options.status, options.text).toBe(200);
    const usdc = options.body.options.find((option: any) => option.amount.display.assetSymbol === 'USDC');
    const [, typedData] = JSON.parse(usdc.actions[0].data.params) as [string, string];
    const signature = await privateKeyToAccount(alice.evmPrivateKey).signTypedData(JSON.parse(typedData));
    const confirmed = await call(server, `/v1/gateway/payment/${paymentId}/confirm`, {
      method: 'POST',
      headers: walletHeaders,
      body: { optionId: usdc.id, results: [{ type: 'walletRpc', data: [signature] }] },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
  }

  beforeAll(async () => {
    const certificate = await createTestCertificate();
    merchantSite = await startLogoServer({
      host: '127.0.0.1',
      certificate,
      routes: {},
    });
    siteUrl = `https://localhost:${merchantSite.port}`;
    testService = await startDevnetService({ prices: { 'EURC/USD': '1.087' }, clock });
    ({ server } = testService);
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
    const app = await createApp(server.db, partner.partnerId, 'Test Wallet');
    walletHeaders = { 'app-id': app.appId, 'client-id': 'device-1' };
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await testService?.close();
    await merchantSite?.close();
  });

  it('sends the buyer to successUrl, with the payment id, once the open page sees the payment succeed', async () => {
    const { paymentId, gatewayUrl } = await previewPayment();
    const { context, page, requests } = await openPage(gatewayUrl);
    expect(await page.locator('#checkout').getAttribute('data-success-url')).toBe(
      `${siteUrl}/thanks?order=7&paymentId=${paymentId}`,
    );
    await followingStatus(requests, paymentId);
    await payInUsdc(paymentId);
    await expect.poll(() => visibleHeading(page).textContent(), { timeout: 30_000 }).toBe('Payment complete');
    expect(await page.getByRole('link', { name: 'Continue to Corner Shop' }).getAttribute('href')).toBe(
      `${siteUrl}/thanks?order=7&paymentId=${paymentId}`,
    );
    await arrivedAt(page, `/thanks?order=7&paymentId=${paymentId}`);
    await context.close();
  });

  it('sends the buyer to errorUrl when the payment fails', async () => {
    const { paymentId, gatewayUrl } = await previewPayment();
    await changePaymentStatus(transition(), paymentId, 'processing');
    await changePaymentStatus(transition(), paymentId, 'failed', { failure_code: 'transaction_failed' });
    const { context, page } = await openPage(gatewayUrl);
    expect(await visibleHeading(page).textContent()).toBe('Payment failed');
    expect(await page.getByRole('link', { name: 'Continue to Corner Shop' }).getAttribute('href')).toBe(
      `${siteUrl}/sorry?paymentId=${paymentId}`,
    );
    await arrivedAt(page, `/sorry?paymentId=${paymentId}`);
    await context.close();
  });

  it('sends the buyer to errorUrl when the payment expires while the page is open', async () => {
    const { paymentId, gatewayUrl } = await previewPayment({
      expiresAt: Math.floor(clock.now().getTime() / 1000) + 65,
    });
    const { context, page, requests } = await openPage(gatewayUrl);
    await followingStatus(requests, paymentId);
    // Its checkout page made a Solana Pay request: the sweep expires it once that follower has read past the expiry.
    await expirePaymentNow(server.ctx, paymentId);
    await arrivedAt(page, `/sorry?paymentId=${paymentId}`);
    await context.close();
  });

  it('offers no way back for a payment created in 2026-02-18, which ignores checkout', async () => {
    const { paymentId, gatewayUrl } = await createPayment(server, partner.apiKey, merchantId, { checkout: checkout() });
    const cancelled = await call(server, `/v1/gateway/payment/${paymentId}/cancel`, {
      method: 'POST',
      headers: walletHeaders,
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const { context, page } = await openPage(gatewayUrl);
    expect(await visibleHeading(page).textContent()).toBe('Payment cancelled');
    expect(await page.locator('#checkout').getAttribute('data-error-url')).toBeNull();
    expect(await page.getByRole('link', { name: 'Continue to Corner Shop' }).count()).toBe(0);
    // Longer than the page waits before it sends the buyer back.
    await page.waitForTimeout(4_000);
    expect(page.url()).toBe(gatewayUrl);
    await context.close();
  });
});
