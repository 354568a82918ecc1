import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPaygateClient } from '@paygate/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from '../../../packages/server/test/dashboard/support/dashboardBrowser.ts';
import { launchChromium } from '../../../packages/wallet/test/support/browserPage.ts';
import { DevnetBrowserWallet } from '../../../packages/wallet/test/support/devnetBrowserWallet.ts';
import { type DevnetGateway, startDevnetGateway } from '../../../packages/wallet/test/support/devnetGateway.ts';
import { storeMerchantId } from '../src/storeMerchant.ts';
import { type RunningStore, startStore } from '../src/storeServer.ts';

/** Screenshots for a person to look at, in a git-ignored folder. */
const ARTIFACTS_DIR = fileURLToPath(new URL('../../../packages/server/test-artifacts/store/', import.meta.url));
const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };

let gw: DevnetGateway;
let browser: Browser;
let store: RunningStore;

beforeAll(async () => {
  [gw, browser] = await Promise.all([startDevnetGateway(), launchChromium()]);
  // No merchant given: the store makes its own, as it does on the quick start.
  store = await startStore({ paygateUrl: gw.server.url, apiKey: gw.partner.apiKey, port: 0, host: '127.0.0.1' });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await store?.close();
  await gw?.close();
});

/** A shopper's tab; `wallet`, when given, is injected as `window.ethereum`, as a browser extension injects it. */
async function shopperPage(wallet?: DevnetBrowserWallet): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORTS.desktop });
  if (wallet) {
    await page.exposeFunction('devnetWallet', (method: string, params: unknown[]) => wallet.handle(method, params));
    await page.addInitScript(() => {
      const w = window as unknown as {
        ethereum: unknown;
        devnetWallet: DevnetBrowserWallet['handle'];
      };
      w.ethereum = {
        async request({ method, params }: { method: string; params?: unknown[] }) {
          const answer = await w.devnetWallet(method, params ?? []);
          if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
          return answer.result;
        },
      };
    });
  }
  return page;
}

/** Full-page screenshots at a phone's and a desktop's size; the page must never scroll sideways. */
async function saveScreenshots(page: Page, name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS_DIR, { recursive: true });
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** Buys a product from the shop's page and lands on the store's checkout; returns the cart's payment id. */
async function buy(page: Page, productName: string): Promise<string> {
  await page.goto(store.url);
  await page.getByRole('button', { name: `Buy ${productName}` }).click();
  await page.waitForURL(`${store.url}/checkout`);
  return (await page.locator('#checkout').getAttribute('data-payment-id'))!;
}

interface ListedPayment {
  paymentId: string;
  status: string;
  transaction: { hash: string } | null;
}

/** The payment as the store's merchant sees it in paygate. */
async function merchantPayment(paymentId: string): Promise<ListedPayment | undefined> {
  const answer = await fetch(`${gw.server.url}/v1/merchants/payments?limit=200`, {
    headers: { 'api-key': gw.partner.apiKey, 'merchant-id': store.merchantId },
  });
  const list = (await answer.json()) as { data: ListedPayment[] };
  return list.data.find((item) => item.paymentId === paymentId);
}

/** A visitor of the store without a browser: the cart cookie its buy got, and its cart's payment id. */
async function visitorWithCart(): Promise<{ cookie: string; paymentId: string }> {
  const bought = await fetch(`${store.url}/buy`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'product=earl-grey',
    redirect: 'manual',
  });
  expect(bought.status).toBe(303);
  const cookie = bought.headers.get('set-cookie')!.split(';')[0]!;
  const checkout = await (await fetch(`${store.url}/checkout`, { headers: { cookie } })).text();
  return { cookie, paymentId: /data-payment-id="(pay_[^"]+)"/.exec(checkout)![1]! };
}

describe('the reference store', () => {
  it('sells a tea: buy, connect the injected wallet, pay USDC, see it received, for the merchant too', async () => {
    const wallet = new DevnetBrowserWallet(gw.buyer('erin').evmPrivateKey, gw.rpcUrls, gw.evmChain);
    const page = await shopperPage(wallet);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    try {
      await page.goto(store.url);
      await expect.poll(() => page.locator('.product').count()).toBe(3);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await saveScreenshots(page, 'products');

      const paymentId = await buy(page, 'Morning Sencha');
      const walletButton = page.getByRole('button', { name: /Browser wallet/ });
      await walletButton.waitFor();
      await expect.poll(() => page.locator('.amount').textContent()).toBe('$12.00');
      expect(await page.locator('.merchant').textContent()).toBe('Pay Copper Kettle Tea');
      expect(await page.locator('.stage').getAttribute('aria-live')).toBe('polite');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await saveScreenshots(page, 'checkout-connect');

      await walletButton.click();
      const { networks } = (await (
        await fetch(`${gw.server.url}/v1/networks`, { headers: { 'api-key': gw.partner.apiKey } })
      ).json()) as { networks: { id: string; name: string }[] };
      const networkName = networks.find((network) => network.id === gw.evmChain)?.name;
      const usdc = page.getByRole('radio', { name: `12.00 USDC on ${networkName}` });
      await usdc.check();
      expect(await page.getByRole('button', { name: 'Pay 12.00 USDC' }).isEnabled()).toBe(true);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await saveScreenshots(page, 'checkout-options');

      // The shopper first declines in the wallet: a message, and a retry that asks the wallet again.
      wallet.rejectNext = true;
      await page.getByRole('button', { name: 'Pay 12.00 USDC' }).click();
      const problem = page.getByRole('alert');
      await expect.poll(() => problem.textContent()).toContain('You declined the request in your wallet.');
      await saveScreenshots(page, 'checkout-declined');
      await problem.getByRole('button', { name: 'Try again' }).click();

      const received = page.getByRole('heading', { name: 'Thank you! Payment received' });
      await received.waitFor({ timeout: 30_000 });
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Thank you! Payment received');
      expect(await page.locator('.stage').textContent()).toBe('Payment received.');
      expect(await page.getByRole('button', { name: 'Cancel payment' }).count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await saveScreenshots(page, 'succeeded');

      const shownTransaction = await page.locator('.transaction code').textContent();
      expect(await merchantPayment(paymentId)).toMatchObject({
        status: 'succeeded',
        transaction: { hash: shownTransaction },
      });
      expect(wallet.methods).toContain('eth_signTypedData_v4');
      expect(await page.content()).not.toContain(gw.partner.apiKey);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('lets a shopper without a wallet find paygate’s page, or cancel the payment', async () => {
    const page = await shopperPage();
    try {
      const paymentId = await buy(page, 'Three-tin gift set');
      const hint = page.getByText('No wallet was found in this browser.');
      await hint.waitFor();
      expect(await hint.getByRole('link').getAttribute('href')).toMatch(new RegExp(`/${paymentId}$`));
      await saveScreenshots(page, 'checkout-no-wallet');

      await page.getByRole('button', { name: 'Cancel payment' }).click();
      await page.getByRole('heading', { name: 'Payment cancelled' }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Payment cancelled');
      await saveScreenshots(page, 'cancelled');
      // The list says failed for a cancelled payment under API versions before the one that lists cancelled.
      expect(await merchantPayment(paymentId)).toMatchObject({ status: expect.stringMatching(/^(cancelled|failed)$/) });
    } finally {
      await page.close();
    }
  });

  it('answers its checkout route only for the payment of the visitor’s own cart', async () => {
    const alice = await visitorWithCart();
    const bob = await visitorWithCart();
    const route = (paymentId: string, suffix = '') =>
      `${store.url}/api/checkout/v1/gateway/payment/${paymentId}${suffix}`;

    expect((await fetch(route(alice.paymentId), { headers: { cookie: alice.cookie } })).status).toBe(200);
    expect((await fetch(route(alice.paymentId), { headers: { cookie: bob.cookie } })).status).toBe(403);
    expect((await fetch(route(alice.paymentId))).status).toBe(403);
    const cancelled = await fetch(route(alice.paymentId, '/cancel'), {
      method: 'POST',
      headers: { cookie: bob.cookie },
    });
    expect(cancelled.status).toBe(403);
    expect(await merchantPayment(alice.paymentId)).toMatchObject({ status: 'requires_action' });
    // A payment of the same partner that no cart of the store holds.
    const { paymentId: elsewhere } = await gw.newPayment();
    expect((await fetch(route(elsewhere), { headers: { cookie: alice.cookie } })).status).toBe(403);
    // A made-up cart cookie names no cart.
    const forged = 'cart=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expect((await fetch(route(alice.paymentId), { headers: { cookie: forged } })).status).toBe(403);
  });

  it('never sends the API key to a page, and keeps one merchant across starts', async () => {
    const { cookie, paymentId } = await visitorWithCart();
    const served = await Promise.all(
      [
        '/',
        '/checkout',
        '/assets/checkout.js',
        '/assets/store.css',
        '/api/checkout/v1/networks',
        `/api/checkout/v1/gateway/payment/${paymentId}`,
      ].map(async (pathname) => {
        const answer = await fetch(`${store.url}${pathname}`, { headers: { cookie } });
        expect(answer.status, pathname).toBe(200);
        const headers: string[] = [];
        answer.headers.forEach((value, name) => {
          headers.push(`${name}: ${value}`);
        });
        return `${headers.join('\n')}\n${await answer.text()}`;
      }),
    );
    for (const text of served) expect(text).not.toContain(gw.partner.apiKey);

    const paygate = createPaygateClient({ baseUrl: gw.server.url, apiKey: gw.partner.apiKey });
    expect(await storeMerchantId(paygate, undefined)).toBe(store.merchantId);
  });
});
