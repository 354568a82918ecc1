import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Devnet } from '@paygate/devnet';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expirePaymentNow } from '../support/expirePaymentNow.ts';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { createApp } from '../../src/partners/partners.ts';
import { setPartnerDataThreshold } from '../../src/gateway/dataCollection/thresholdSettings.ts';
import { createMerchant, createPayment, transitionsOf } from '../support/fixtures.ts';
import { createTestCertificate, type LogoServer, serveBytes, startLogoServer } from '../support/logoServer.ts';
import { ManualClock } from '../support/manualClock.ts';
import { childEnv } from '../support/serverProcess.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';
import {
  ARTIFACTS_DIR,
  contrastRatio,
  decodeQr,
  injectDevnetWallet,
  launchChromium,
  recordTraffic,
  saveScreenshots,
  textColours,
  VIEWPORTS,
} from './support/browser.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { seriousAxeViolations } from '../dashboard/support/dashboardBrowser.ts';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost']);
/** The screens the page is looked at on: a current phone and a desktop. */
const SCREENS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;
/** The narrowest phone the page is laid out for. */
const NARROWEST = { width: 320, height: 568 };

/** Amounts (the total, each token's, those in sentences and lines) that are drawn on more than one line. */
function wrappedAmounts(page: Page): Promise<string[]> {
  return page.locator('#amount, .option-amount, .figure').evaluateAll((elements) =>
    elements.flatMap((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const lineTops = new Set(
        Array.from(range.getClientRects())
          .filter((rect) => rect.width > 0)
          .map((rect) => Math.round(rect.top)),
      );
      return lineTops.size > 1 ? [element.textContent ?? ''] : [];
    }),
  );
}
const WALLET_BIN = fileURLToPath(new URL('../../../wallet/bin/paygate-wallet.js', import.meta.url));

/** Runs `paygate-wallet` as its own process, as a buyer's phone wallet stand-in; resolves with its exit and output. */
function runWalletCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [WALLET_BIN, ...args], {
    env: childEnv({}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('buyer checkout page in Chromium on the devnet', () => {
  let testService: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let walletHeaders: Record<string, string>;
  let browser: Browser;
  let httpsSites: LogoServer;
  let merchantSite: string;
  const clock = new ManualClock();
  const traffic: ReturnType<typeof recordTraffic>[] = [];

  const buyer = (name: string) => {
    const found = devnet.manifest.buyers.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no devnet buyer ${name}`);
    return found;
  };
  const evmChain = () => devnet.manifest.evm[0]!;
  const transition = transitionsOf(
    () => server,
    () => clock.now(),
  );

  beforeAll(async () => {
    const certificate = await createTestCertificate();
    const logo = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#0f766e' } })
      .png()
      .toBuffer();
    httpsSites = await startLogoServer({
      host: '127.0.0.1',
      certificate,
      routes: { '/logo.png': serveBytes(logo, 'image/png') },
    });
    merchantSite = `https://localhost:${httpsSites.port}`;

    testService = await startDevnetService({
      prices: { 'EURC/USD': '1.087', 'USDC/EUR': '0.92', 'ETH/USD': '3000' },
      clock,
      env: { DATA_ENCRYPTION_KEY: randomBytes(32).toString('hex') },
      context: { logoFetch: { allowPrivateHosts: true, extraCaCertificates: [certificate.cert] } },
    });
    ({ devnet, server } = testService);
    partner = await newPartner(server.db);
    merchantId = (
      await createMerchant(server, partner.apiKey, {
        merchantName: 'Corner Shop',
        merchantEmail: 'owner@corner-shop.com',
        iconUrl: `${merchantSite}/logo.png`,
      })
    ).id;
    const app = await createApp(server.db, partner.partnerId, 'Test Wallet');
    walletHeaders = { 'app-id': app.appId, 'client-id': 'device-1' };
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await testService?.close();
    await httpsSites?.close();
  });

  async function newContext(options: { javaScriptEnabled?: boolean; locale?: string } = {}): Promise<BrowserContext> {
    const context = await browser.newContext({
      viewport: VIEWPORTS.phone,
      ignoreHTTPSErrors: true,
      javaScriptEnabled: options.javaScriptEnabled ?? true,
      locale: options.locale ?? 'en-US',
    });
    traffic.push(recordTraffic(context));
    return context;
  }

  async function openPage(
    link: string,
    options: Parameters<typeof newContext>[0] = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await newContext(options);
    const page = await context.newPage();
    const response = await page.goto(link);
    expect(response?.status()).toBe(200);
    return { context, page };
  }

  /** Resolves once the page holds a status long-poll open (after its first, immediate sync call). */
  async function longPollOpen(paymentId: string): Promise<void> {
    const requests = traffic.at(-1)!.requests;
    await expect
      .poll(() => requests.some((url) => url.includes(`/v1/gateway/payment/${paymentId}/status?maxPollMs=25000`)), {
        timeout: 10_000,
      })
      .toBe(true);
  }

  const visibleHeading = (page: Page) => page.locator('[data-view]:not([hidden]) h2');

  async function payThroughGateway(paymentId: string, buyerName: string) {
    const accounts = [`${evmChain().caip2}:${buyer(buyerName).evmAddress}`];
    const options = await call(server, `/v1/gateway/payment/${paymentId}/options`, {
      method: 'POST',
      headers: walletHeaders,
      body: { accounts },
    });
    expect(options.status, options.text).toBe(200);
    const usdc = options.body.options.find((option: any) => option.amount.display.assetSymbol === 'USDC');
    const [from, typedData] = JSON.parse(usdc.actions[0].data.params) as [string, string];
    expect(from.toLowerCase()).toBe(buyer(buyerName).evmAddress.toLowerCase());
    const signature = await privateKeyToAccount(buyer(buyerName).evmPrivateKey).signTypedData(JSON.parse(typedData));
    const confirmed = await call(server, `/v1/gateway/payment/${paymentId}/confirm`, {
      method: 'POST',
      headers: walletHeaders,
      body: { optionId: usdc.id, results: [{ type: 'walletRpc', data: [signature] }] },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
  }

  const checkoutPayment = (checkout?: Record<string, string>) =>
    createPayment(server, partner.apiKey, merchantId, checkout ? { checkout } : {}, '/v1/merchant/payment');

  it('shows merchant, logo, amount, time left and a QR code that decodes to the payment link', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    expect(gatewayUrl).toBe(`${server.url}/${paymentId}`);
    const { context, page } = await openPage(gatewayUrl);
    await expect.poll(() => page.locator('#checkout').getAttribute('data-status')).toBe('requires_action');
    expect(await page.locator('h1').textContent()).toBe('Corner Shop');
    expect(await page.locator('#amount').textContent()).toBe('$10.00');
    expect(await page.locator('#time-left').textContent()).toMatch(/^1[45]:\d\d$/);
    const logo = page.locator('img.logo');
    expect(await logo.getAttribute('src')).toMatch(new RegExp(`^${server.url}/assets/logos/[0-9a-f]{64}\\.png$`));
    expect(await logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(512);
    expect(await visibleHeading(page).textContent()).toBe('Choose how to pay');

    // One QR code at a time: the chosen token's request (its deposit address's EIP-681 QR code, test/deposits); the
    // link's own, for opening the page on another device, is folded away until asked for.
    expect(await page.getByRole('img', { name: /^QR code/ }).count()).toBe(1);
    await page.getByText('Open this page on another device').click();
    const qr = await page.getByRole('img', { name: 'QR code of the payment link' }).screenshot();
    expect(await decodeQr(qr)).toBe(gatewayUrl);
    // The link's QR code is read from the whole page without the token's.
    await page.locator('[data-pay-panel]').evaluateAll((panels) => {
      for (const panel of panels) (panel as HTMLElement).hidden = true;
    });
    const wholePage = await page.screenshot({ fullPage: true });
    expect(await decodeQr(wholePage)).toBe(gatewayUrl);
    await page.reload();
    await saveScreenshots(page, 'requires_action');
    await context.close();
  });

  it('looks right in every state, light and dark, phone and desktop, in English, German and Japanese: axe finds nothing serious, nothing scrolls sideways at 320 px, no amount wraps', async () => {
    const chain = evmChain();
    /** Screenshots of the page as it is now in both schemes, each checked by axe; the open page also at 320 px. */
    async function lookAt(page: Page, name: string): Promise<void> {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        expect(await seriousAxeViolations(page), `${name} ${colorScheme}`).toEqual([]);
        await saveScreenshots(page, `look-${name}-${colorScheme}`, SCREENS);
        await page.setViewportSize(NARROWEST);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at 320 px`).toBe(320);
        expect(await wrappedAmounts(page), `${name} at 320 px`).toEqual([]);
        await page.setViewportSize(SCREENS.phone);
      }
      await page.emulateMedia({ colorScheme: null });
    }

    const open = await createPayment(server, partner.apiKey, merchantId);
    for (const [language, sendLabel] of [
      ['en', 'Send to an address'],
      ['de', 'An eine Adresse senden'],
      ['ja', 'アドレスに送金'],
    ] as const) {
      const { context, page } = await openPage(`${open.gatewayUrl}?locale=${language}`, { locale: language });
      const panel = page.locator('[data-pay-panel]:not([hidden])');
      expect(await panel.getAttribute('data-asset')).toBe(
        chain.tokens.find((token) => token.symbol === 'USDC')!.caip19,
      );
      await lookAt(page, `requires_action-scan-${language}`);
      await panel.getByText(sendLabel, { exact: true }).click();
      expect(await panel.locator('[data-deposit-address]').isVisible()).toBe(true);
      expect(await page.getByRole('img').count()).toBe(1);
      await lookAt(page, `requires_action-send-${language}`);
      await context.close();
    }

    const processing = await createPayment(server, partner.apiKey, merchantId);
    await changePaymentStatus(transition, processing.paymentId, 'processing');
    const failed = await createPayment(server, partner.apiKey, merchantId);
    await changePaymentStatus(transition, failed.paymentId, 'processing');
    await changePaymentStatus(transition, failed.paymentId, 'failed', { failure_code: 'reverted' });
    const cancelled = await createPayment(server, partner.apiKey, merchantId);
    const cancelling = await call(server, `/v1/gateway/payment/${cancelled.paymentId}/cancel`, {
      method: 'POST',
      headers: walletHeaders,
    });
    expect(cancelling.status).toBe(200);
    const expired = await createPayment(server, partner.apiKey, merchantId);
    await expirePaymentNow(server.ctx, expired.paymentId);
    const succeeded = await createPayment(server, partner.apiKey, merchantId);
    await payThroughGateway(succeeded.paymentId, 'alice');
    for (const [payment, status] of [
      [processing, 'processing'],
      [succeeded, 'succeeded'],
      [failed, 'failed'],
      [expired, 'expired'],
      [cancelled, 'cancelled'],
    ] as const) {
      const { context, page } = await openPage(payment.gatewayUrl);
      expect(await page.locator('#checkout').getAttribute('data-status')).toBe(status);
      await lookAt(page, status);
      await context.close();
    }
  });

  it('serves the same page at /?pid= and formats the amount for the Accept-Language locale', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId, {
      amount: { unit: 'iso4217/EUR', value: '123456' },
    });
    const { context, page } = await openPage(`${server.url}/?pid=${paymentId}`, { locale: 'de-DE' });
    expect(await page.locator('#amount').textContent()).toBe('1.234,56\u00a0€');
    expect(await page.locator('#checkout').getAttribute('data-payment-id')).toBe(paymentId);
    await context.close();
  });

  it('renders processing, succeeded, failed and cancelled views, phone and desktop', async () => {
    const processing = await createPayment(server, partner.apiKey, merchantId);
    await changePaymentStatus(transition, processing.paymentId, 'processing');
    const failed = await createPayment(server, partner.apiKey, merchantId);
    await changePaymentStatus(transition, failed.paymentId, 'processing');
    await changePaymentStatus(transition, failed.paymentId, 'failed', { failure_code: 'reverted' });
    const cancelled = await createPayment(server, partner.apiKey, merchantId);
    expect(
      (
        await call(server, `/v1/gateway/payment/${cancelled.paymentId}/cancel`, {
          method: 'POST',
          headers: walletHeaders,
        })
      ).status,
    ).toBe(200);
    const succeeded = await createPayment(server, partner.apiKey, merchantId);
    await payThroughGateway(succeeded.paymentId, 'alice');

    const expected = [
      [processing, 'processing', 'Payment sent'],
      [failed, 'failed', 'Payment failed'],
      [cancelled, 'cancelled', 'Payment cancelled'],
      [succeeded, 'succeeded', 'Payment complete'],
    ] as const;
    for (const [payment, status, heading] of expected) {
      const { context, page } = await openPage(payment.gatewayUrl);
      expect(await page.locator('#checkout').getAttribute('data-status')).toBe(status);
      expect(await visibleHeading(page).textContent()).toBe(heading);
      expect(await page.locator('[data-view]:not([hidden])').count()).toBe(1);
      expect(await page.locator('#time-left-line').isVisible()).toBe(false);
      if (status === 'succeeded') {
        expect(await page.locator('#paid-with').textContent()).toMatch(/^Paid with 10 USDC on /);
        // The devnet has no explorer.
        expect(await page.locator('#transaction-link').isVisible()).toBe(false);
      }
      await saveScreenshots(page, status);
      await context.close();
    }
  });

  it('moves to succeeded without a reload while paygate-wallet pays the link', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const { context, page } = await openPage(gatewayUrl);
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations += 1;
    });
    await page.evaluate(() => ((window as any).loadedOnce = true));
    // The page's first status call syncs at once; the next one is the long-poll that must wake on payment.
    await longPollOpen(paymentId);
    const paid = await runWalletCli([
      'pay',
      gatewayUrl,
      '--gateway-url',
      server.url,
      ...['--app-id', walletHeaders['app-id']!, '--client-id', 'cli-1'],
      ...['--devnet-dir', testService.devnetDir, '--buyer', 'bob', '--network', evmChain().caip2, '--token', 'USDC'],
    ]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout)).toMatchObject({ paymentId, status: 'succeeded' });
    await expect.poll(() => visibleHeading(page).textContent(), { timeout: 30_000 }).toBe('Payment complete');
    expect(await page.evaluate(() => (window as any).loadedOnce)).toBe(true);
    expect(navigations).toBe(0);
    expect(await page.locator('#status-announcer').textContent()).toBe('Payment complete.');
    expect(await page.locator('#paid-with').textContent()).toMatch(/^Paid with 10 USDC on /);
    await context.close();
  });

  it('pays with an injected browser wallet: pick, connect, recover from wallet errors, sign, succeed, return to the merchant', async () => {
    const { gatewayUrl, paymentId } = await checkoutPayment({
      successUrl: `${merchantSite}/done`,
      errorUrl: `${merchantSite}/sorry`,
    });
    const context = await newContext();
    const page = await context.newPage();
    const chain = evmChain();
    const wallet = await injectDevnetWallet(page, {
      privateKey: buyer('erin').evmPrivateKey,
      chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name },
      script: { unknownChainOnce: true, rejectSignatureOnce: true },
    });
    await page.goto(gatewayUrl);

    // The injected wallet (window.ethereum, no EIP-6963 announcement) pays the picked option.
    await page.getByRole('radio', { name: new RegExp(`^10 USDC\\s*${chain.name}$`) }).check();
    const payButton = page.getByRole('button', { name: 'Pay with a browser wallet' });
    await expect.poll(() => payButton.isVisible()).toBe(true);
    expect(wallet.calls).toEqual([]);
    await saveScreenshots(page, 'browser-wallet-injected');
    const alert = page.getByRole('alert');
    const retry = page.getByRole('button', { name: 'Try again' });

    // The wallet does not know the devnet chain yet: explained, and the buyer can retry.
    await payButton.click();
    await expect.poll(() => alert.textContent()).toContain(`could not switch to the ${chain.name} network`);
    await saveScreenshots(page, 'browser-wallet-unknown-chain');
    // Trying again switches (the network is known now); the buyer declines the signature: explained, nothing paid.
    await retry.click();
    await expect.poll(() => alert.textContent()).toContain('You declined the request in your wallet');
    expect(
      (await call(server, `/v1/gateway/payment/${paymentId}/status`, { headers: walletHeaders })).body.status,
    ).toBe('requires_action');
    await retry.click();

    await page.waitForURL(`${merchantSite}/done?paymentId=${paymentId}`, { timeout: 45_000 });
    expect(wallet.calls).toContain('eth_signTypedData_v4');
    expect(wallet.calls.filter((method) => method === 'wallet_switchEthereumChain').length).toBeGreaterThanOrEqual(2);
    const status = await call(server, `/v1/gateway/payment/${paymentId}/status`, { headers: walletHeaders });
    expect(status.body).toMatchObject({ status: 'succeeded', isFinal: true });
    const listed = await call(server, `/v1/payments/${paymentId}`, {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
    });
    expect(listed.body.buyer.accountCaip10.toLowerCase()).toBe(`${chain.caip2}:${wallet.address}`.toLowerCase());
    await context.close();
  });

  it("puts the buyer's next step on a phone's first screen, beside the merchant and the amount", async () => {
    const { gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    const chain = evmChain();
    for (const viewport of [{ width: 390, height: 844 }, VIEWPORTS.phone]) {
      const context = await newContext();
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      // Alice holds USDC, EURC, USDT and ETH on both devnet EVM chains: eight options.
      await injectDevnetWallet(page, {
        privateKey: buyer('alice').evmPrivateKey,
        chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name },
      });
      await page.goto(gatewayUrl);
      const onFirstScreen = async (selector: string) => {
        const box = await page.locator(selector).boundingBox();
        return box !== null && box.y >= 0 && box.y + box.height <= viewport.height;
      };
      // Eleven ways to pay (five tokens on each EVM chain, USDC on Solana), the first six listed and the rest behind
      // a button, and the wallet that pays the pick.
      const connect = page.getByRole('button', { name: 'Pay with a browser wallet' });
      await expect.poll(() => connect.isVisible()).toBe(true);
      const ways = page.getByRole('group', { name: 'Choose how to pay' }).getByRole('radio');
      expect(await ways.count()).toBe(6);
      expect(await onFirstScreen('button.show-all')).toBe(true);
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
      expect(await onFirstScreen('#wallet-list button')).toBe(true);
      expect(await onFirstScreen('h1')).toBe(true);
      expect(await onFirstScreen('#amount')).toBe(true);
      // 10 USD at 3,000 USD per ETH is 0.003333333333333334 ETH: shown readable, rounded up.
      const amounts = await page.locator('.option-amount').allTextContents();
      expect(amounts.filter((amount) => amount.endsWith('ETH'))).toEqual(['0.00333334 ETH', '0.00333334 ETH']);
      const size = `${viewport.width}x${viewport.height}`;
      await page.screenshot({ path: path.join(ARTIFACTS_DIR, `first-screen-${size}.png`) });
      await context.close();
    }
  });

  it('preselects the stablecoin of the payment currency: EURC at par for a EUR payment, USDC for USD', async () => {
    for (const [currency, preselected] of [
      ['EUR', /^10 EURC/],
      ['USD', /^10 USDC/],
    ] as const) {
      const { gatewayUrl } = await createPayment(server, partner.apiKey, merchantId, {
        amount: { unit: `iso4217/${currency}`, value: '1000' },
      });
      const { context, page } = await openPage(gatewayUrl);
      // EUR: USDC (at a conversion) and EURC on each EVM chain and USDC on Solana; USD: every token, eleven, of
      // which the first six are listed until the buyer asks for all.
      const ways = page.getByRole('group', { name: 'Choose how to pay' }).getByRole('radio');
      expect(await ways.count()).toBe(currency === 'EUR' ? 5 : 6);
      const checked = page.locator('.option:has(input:checked)');
      expect(await checked.count()).toBe(1);
      expect(await checked.textContent()).toMatch(preselected);
      if (currency === 'EUR') {
        // USDC, at a conversion, is listed before EURC.
        expect(await page.locator('.option').first().textContent()).not.toMatch(/^10 EURC/);
        await saveScreenshots(page, 'accepted-eur-payment');
      }
      await context.close();
    }
  });

  it("links the transaction on the network's explorer on success, live and after a reload", async () => {
    // The devnet has no explorer: its registry entry is given one for this test.
    const network = server.ctx.chains.network(evmChain().caip2)!;
    network.explorerUrl = 'https://explorer.example';
    try {
      const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
      const { context, page } = await openPage(gatewayUrl);
      const transaction = page.getByRole('link', { name: 'View transaction' });
      expect(await transaction.isVisible()).toBe(false);
      await longPollOpen(paymentId);
      await payThroughGateway(paymentId, 'alice');
      await expect.poll(() => visibleHeading(page).textContent(), { timeout: 30_000 }).toBe('Payment complete');
      const status = await call(server, `/v1/gateway/payment/${paymentId}/status`, { headers: walletHeaders });
      const txId: string = status.body.info.txId;
      expect(txId).toMatch(/^0x[0-9a-f]{64}$/);
      for (const shown of ['live', 'reloaded']) {
        if (shown === 'reloaded') await page.reload();
        await expect.poll(() => transaction.isVisible(), { message: shown }).toBe(true);
        expect(await transaction.getAttribute('href'), shown).toBe(`https://explorer.example/tx/${txId}`);
      }
      await saveScreenshots(page, 'succeeded-with-transaction-link');
      await context.close();
    } finally {
      delete network.explorerUrl;
    }
  });

  it('serves its icon under the strict policy, and /favicon.ico leads to it', async () => {
    const { gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    const { context, page } = await openPage(gatewayUrl);
    const iconPath = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(iconPath).toMatch(/^\/assets\/checkout\/favicon\.[0-9a-f]{16}\.svg$/);
    const icon = await page.request.get(new URL(iconPath!, gatewayUrl).toString());
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const favicon = await fetch(`${server.url}/favicon.ico`, { redirect: 'manual' });
    expect(favicon.status).toBe(302);
    expect(favicon.headers.get('location')).toBe(iconPath);
    const followed = await page.request.get(`${server.url}/favicon.ico`);
    expect([followed.status(), followed.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
    await context.close();
  });

  it('pays a token without EIP-3009 from the browser wallet: approval transaction, then the Permit2 signature', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const context = await newContext();
    const page = await context.newPage();
    const chain = evmChain();
    const wallet = await injectDevnetWallet(page, {
      privateKey: buyer('carol').evmPrivateKey,
      chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name },
    });
    await page.goto(gatewayUrl);
    await page.getByRole('radio', { name: new RegExp(`^10 USDT\\s*${chain.name}$`) }).check();
    await page.getByRole('button', { name: 'Pay with a browser wallet' }).click();
    await expect.poll(() => visibleHeading(page).textContent(), { timeout: 60_000 }).toBe('Payment complete');
    expect(
      wallet.calls.filter((method) => method === 'eth_sendTransaction' || method === 'eth_signTypedData_v4'),
    ).toEqual(['eth_sendTransaction', 'eth_signTypedData_v4']);
    expect(await page.locator('#paid-with').textContent()).toBe(`Paid with 10 USDT on ${chain.name}.`);
    const status = await call(server, `/v1/gateway/payment/${paymentId}/status`, { headers: walletHeaders });
    expect(status.body).toMatchObject({ status: 'succeeded', isFinal: true });
    await context.close();
  });

  it("asks for the buyer's details in the service's form before the browser wallet pays, when the payment needs them", async () => {
    const asking = await newPartner(server.db, 'Partner asking for buyer data');
    await setPartnerDataThreshold(server.db, asking.partnerId, { currency: 'USD', amount: 500n });
    const askingMerchant = (await createMerchant(server, asking.apiKey)).id;
    const { gatewayUrl, paymentId } = await createPayment(server, asking.apiKey, askingMerchant);
    const context = await newContext();
    const page = await context.newPage();
    const chain = evmChain();
    const wallet = await injectDevnetWallet(page, {
      privateKey: buyer('erin').evmPrivateKey,
      chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name },
    });
    await page.goto(gatewayUrl);
    await page.getByRole('radio', { name: new RegExp(`^10 USDC\\s*${chain.name}$`) }).check();
    await page.getByRole('button', { name: 'Pay with a browser wallet' }).click();

    const form = page.frameLocator('iframe[title="Your details for this payment"]');
    await form.getByLabel('Full name').fill('Erin Example');
    await saveScreenshots(page, 'browser-wallet-buyer-details');
    expect(wallet.calls).not.toContain('eth_signTypedData_v4');
    await form.getByLabel('Date of birth').fill('1990-04-01');
    await form.getByLabel('Place of residence').fill('Lisbon, Portugal');
    await form.getByLabel('I accept the terms of this payment').check();
    await form.getByRole('button', { name: 'Continue' }).click();

    await expect.poll(() => visibleHeading(page).textContent(), { timeout: 45_000 }).toBe('Payment complete');
    expect(wallet.calls).toContain('eth_signTypedData_v4');
    expect(await page.locator('iframe').count()).toBe(0);
    const stored = await server.db
      .selectFrom('buyer_data')
      .select('scope')
      .where('payment_id', '=', paymentId)
      .execute();
    expect(stored).toHaveLength(1);
    await context.close();
  });

  it('is usable by keyboard and screen reader, with text contrast of at least 4.5:1', async () => {
    const { gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    const context = await newContext();
    const page = await context.newPage();
    const chain = evmChain();
    await injectDevnetWallet(page, {
      privateKey: buyer('erin').evmPrivateKey,
      chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name },
    });
    await page.goto(gatewayUrl);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.getByRole('main').count()).toBe(1);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Corner Shop');
    // One QR code in sight, named for what it carries; the link's is folded away.
    expect(
      await page.getByRole('img', { name: `QR code of a request to send 10 USDC on ${evmChain().name}` }).count(),
    ).toBe(1);
    expect(await page.getByRole('img', { name: 'QR code of the payment link', includeHidden: true }).count()).toBe(1);
    expect(await page.getByRole('img').count()).toBe(1);
    expect(await page.getByRole('status').count()).toBe(1);

    // Tab reaches the accepted list, a group of named radios; arrows pick; Tab reaches the wallet with a focus ring.
    const firstOption = page.getByRole('group', { name: 'Choose how to pay' }).getByRole('radio').first();
    for (
      let presses = 0;
      presses < 10 && !(await firstOption.evaluate((radio) => radio === document.activeElement));
      presses++
    ) {
      await page.keyboard.press('Tab');
    }
    expect(await firstOption.evaluate((radio) => radio === document.activeElement)).toBe(true);
    await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('group', { name: 'Choose how to pay' }).getByRole('radio').nth(1).isChecked()).toBe(
      true,
    );
    await expect.poll(() => page.locator('#pay-with-title').textContent()).toMatch(/^Pay 9\.199633 EURC on /);
    // The list is long: Tab reaches the button that shows the rest of it, then the wallet.
    const showAll = page.getByRole('button', { name: 'Show all 11 ways to pay' });
    await page.keyboard.press('Tab');
    expect(await showAll.evaluate((button) => button === document.activeElement)).toBe(true);
    const connect = page.getByRole('button', { name: 'Pay with a browser wallet' });
    await page.keyboard.press('Tab');
    expect(await connect.evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await connect.evaluate((button) => getComputedStyle(button).outlineStyle)).toBe('solid');
    expect(await page.getByRole('group', { name: /^Pay 9\.199633 EURC on .* with$/ }).count()).toBe(1);

    // Tab goes on to the choice between scanning and sending, with a focus ring; arrows switch it.
    const scan = page.getByRole('radio', { name: 'Scan with a wallet app' });
    for (
      let presses = 0;
      presses < 5 && !(await scan.evaluate((radio) => radio === document.activeElement));
      presses++
    ) {
      await page.keyboard.press('Tab');
    }
    expect(await scan.evaluate((radio) => radio === document.activeElement)).toBe(true);
    const scanTab = page.locator('[data-pay-panel]:not([hidden]) label.way-tab').first();
    expect(await scanTab.evaluate((label) => getComputedStyle(label).outlineStyle)).toBe('solid');
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('radio', { name: 'Send to an address' }).isChecked()).toBe(true);
    expect(await page.locator('[data-pay-panel]:not([hidden]) [data-deposit-address]').isVisible()).toBe(true);

    for (const viewport of Object.values(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      const colours = await textColours(page);
      expect(colours.length).toBeGreaterThan(8);
      const weak = colours.filter(({ color, background }) => contrastRatio(color, background) < 4.5);
      expect(weak).toEqual([]);
    }
    await context.close();
  });

  it('redirects a final payment to errorUrl only when both URLs are HTTPS; otherwise stays on the generic view', async () => {
    const both = await checkoutPayment({ successUrl: `${merchantSite}/done`, errorUrl: `${merchantSite}/sorry` });
    const missing = await checkoutPayment({ successUrl: `${merchantSite}/done` });
    const plainHttp = await checkoutPayment({ successUrl: `${merchantSite}/done`, errorUrl: 'http://localhost/sorry' });
    for (const payment of [both, missing, plainHttp]) {
      expect(
        (
          await call(server, `/v1/gateway/payment/${payment.paymentId}/cancel`, {
            method: 'POST',
            headers: walletHeaders,
          })
        ).status,
      ).toBe(200);
    }

    const redirected = await openPage(both.gatewayUrl);
    expect(await redirected.page.getByRole('link', { name: 'Continue to Corner Shop' }).getAttribute('href')).toBe(
      `${merchantSite}/sorry?paymentId=${both.paymentId}`,
    );
    await redirected.page.waitForURL(`${merchantSite}/sorry?paymentId=${both.paymentId}`, { timeout: 10_000 });
    await redirected.context.close();

    for (const payment of [missing, plainHttp]) {
      const { context, page } = await openPage(payment.gatewayUrl);
      expect(await visibleHeading(page).textContent()).toBe('Payment cancelled');
      expect(await page.locator('#checkout').getAttribute('data-success-url')).toBeNull();
      expect(await page.locator('.redirect-note').count()).toBe(0);
      // Longer than the page waits before redirecting.
      await page.waitForTimeout(4_000);
      expect(page.url()).toBe(payment.gatewayUrl);
      await context.close();
    }
  });

  it('shows the expired view live when the payment expires while open', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId, {
      expiresAt: Math.floor(clock.now().getTime() / 1000) + 65,
    });
    const { context, page } = await openPage(gatewayUrl);
    expect(await page.locator('#time-left').textContent()).toMatch(/^[01]:\d\d$/);
    await longPollOpen(paymentId);
    // Its checkout page made a Solana Pay request: the sweep expires it once that follower has read past the expiry.
    await expirePaymentNow(server.ctx, paymentId);
    await expect.poll(() => visibleHeading(page).textContent(), { timeout: 30_000 }).toBe('Payment expired');
    expect(await page.locator('#time-left-line').isVisible()).toBe(false);
    await saveScreenshots(page, 'expired');
    await context.close();

    const reopened = await openPage(gatewayUrl);
    expect(await reopened.page.locator('#checkout').getAttribute('data-status')).toBe('expired');
    await reopened.context.close();
  });

  it('works without JavaScript: shows the status and refreshes until the payment is final', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const { context, page } = await openPage(gatewayUrl, { javaScriptEnabled: false });
    expect(await visibleHeading(page).textContent()).toBe('Choose how to pay');
    expect(await page.locator('#time-left').textContent()).toMatch(/^1[45]:\d\d$/);
    expect(await page.locator('#browser-wallet').isVisible()).toBe(false);
    // Scanning and sending to the address are a choice the stylesheet shows, one at a time.
    const panel = page.locator('[data-pay-panel]:not([hidden])');
    const address = panel.locator('[data-deposit-address]');
    expect(await address.isVisible()).toBe(false);
    await panel.getByText('Send to an address').click();
    expect(await address.isVisible()).toBe(true);
    expect(await panel.locator('figure.qr').isVisible()).toBe(false);
    await payThroughGateway(paymentId, 'alice');
    await expect.poll(() => visibleHeading(page).textContent(), { timeout: 20_000 }).toBe('Payment complete');
    await saveScreenshots(page, 'succeeded-without-javascript');
    await context.close();
  });

  it('answers an unknown payment with a clear 404 page, at both link forms', async () => {
    const context = await newContext();
    const page = await context.newPage();
    for (const link of [
      `${server.url}/pay_01JZZZZZZZZZZZZZZZZZZZZZZZ`,
      `${server.url}/?pid=pay_nope`,
      `${server.url}/?pid=`,
    ]) {
      const response = await page.goto(link);
      expect(response?.status(), link).toBe(404);
      expect(response?.headers()['content-type']).toMatch(/^text\/html/);
      expect(await page.locator('h1').textContent()).toBe('Payment not found');
      expect(await page.content()).not.toMatch(/at .*\.ts:\d+|Error:/);
    }
    await saveScreenshots(page, 'not-found');
    await context.close();
    // Anything at the root that is not a payment id stays the API's JSON 404.
    const other = await call(server, '/not-a-payment');
    expect([other.status, other.body.code]).toEqual([404, 'not_found']);
  });

  it('works with CHECKOUT_URL on another origin than BASE_URL: CSP names the API, the gateway allows that origin only', async () => {
    const { config } = server.ctx;
    const apiOrigin = new URL(server.url).origin;
    config.checkoutUrl = `http://localhost:${new URL(server.url).port}`;
    try {
      const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
      expect(new URL(gatewayUrl).origin).toBe(config.checkoutUrl);
      const preflight = await call(server, `/v1/gateway/payment/${paymentId}/status`, {
        method: 'OPTIONS',
        headers: {
          origin: config.checkoutUrl,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'app-id,client-id',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(config.checkoutUrl);
      expect(preflight.headers.get('access-control-allow-headers')).toContain('client-id');
      const stranger = await call(server, `/v1/gateway/payment/${paymentId}/status`, {
        headers: { ...walletHeaders, origin: 'https://evil.example' },
      });
      expect(stranger.headers.get('access-control-allow-origin')).toBeNull();

      const { context, page } = await openPage(gatewayUrl);
      const policy = (await page.request.get(gatewayUrl)).headers()['content-security-policy'];
      expect(policy).toContain(`connect-src 'self' ${apiOrigin};`);
      expect(await page.locator('img.logo').evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(512);
      await longPollOpen(paymentId);
      await payThroughGateway(paymentId, 'alice');
      await expect.poll(() => visibleHeading(page).textContent(), { timeout: 30_000 }).toBe('Payment complete');
      await context.close();
    } finally {
      config.checkoutUrl = server.url;
    }
  });

  it('sends a strict Content-Security-Policy and makes no request beyond this service', async () => {
    const { gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    const page = await call(server, new URL(gatewayUrl).pathname);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(page.text).not.toMatch(/<script>|<script(?![^>]*\ssrc=)[^>]*>|\sstyle=|\son[a-z]+=/i);

    const requested = traffic.flatMap((entry) => entry.requests);
    expect(requested.length).toBeGreaterThan(20);
    const foreign = requested.filter((url) => !url.startsWith('data:') && !LOCAL_HOSTS.has(new URL(url).hostname));
    expect(foreign).toEqual([]);
    const violations = traffic
      .flatMap((entry) => entry.consoleErrors)
      .filter((text) => /Content Security Policy/i.test(text));
    expect(violations).toEqual([]);
  });
});
