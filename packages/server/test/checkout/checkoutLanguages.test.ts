import { randomBytes } from 'node:crypto';
import type { Devnet } from '@paygate/devnet';
import type { Browser, BrowserContext, Frame, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPartnerDataThreshold } from '../../src/gateway/dataCollection/thresholdSettings.ts';
import { type CornerShop, startCornerShop } from './support/cornerShop.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';
import { injectDevnetWallet, recordTraffic, saveScreenshots } from './support/browser.ts';

/** The screens the languages are looked at on: a current phone and a desktop. */
const SCREENS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

/** What a catalogue key looks like (`status.paid`): no page text may read like one. */
const RAW_KEY = /\b[a-z]+(\.[a-zA-Z]+)+\b/;

describe('checkout page in the buyer language, in Chromium on the devnet', () => {
  let shop: CornerShop;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let walletHeaders: Record<string, string>;
  let browser: Browser;
  const traffic: ReturnType<typeof recordTraffic>[] = [];

  const visibleHeading = (page: Page) => page.locator('[data-view]:not([hidden]) h2');

  beforeAll(async () => {
    shop = await startCornerShop({ DATA_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    ({ devnet, server, partner, merchantId, walletHeaders, browser } = shop);
  }, 180_000);

  afterAll(async () => {
    await shop?.close();
  });

  /** A browser whose `Accept-Language` is `locale`'s, with a devnet EVM wallet injected into its page. */
  async function openWithWallet(link: string, locale: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: SCREENS.phone, locale });
    traffic.push(recordTraffic(context));
    const page = await context.newPage();
    const chain = devnet.manifest.evm[0]!;
    const erin = devnet.manifest.buyers.find((buyer) => buyer.name === 'erin')!;
    await injectDevnetWallet(page, {
      privateKey: erin.evmPrivateKey,
      chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name },
    });
    const response = await page.goto(link);
    expect(response?.status()).toBe(200);
    return { context, page };
  }

  /**
   * Every word the page holds for a person (its text, hidden views included, and its titles, labels and alt texts)
   * that reads like a catalogue key instead of a message.
   */
  function rawKeysOn(page: Page | Frame): Promise<string[]> {
    return page.evaluate((pattern) => {
      const key = new RegExp(pattern);
      const texts = [document.title];
      // Each piece of text on its own, hidden views included: two joined could read like a key.
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node.textContent ?? '');
      for (const element of Array.from(document.querySelectorAll('[title], [aria-label], [alt], [placeholder]'))) {
        for (const name of ['title', 'aria-label', 'alt', 'placeholder']) texts.push(element.getAttribute(name) ?? '');
      }
      return texts.flatMap((text) => text.match(key) ?? []);
    }, RAW_KEY.source);
  }

  /** Buttons and button-like links whose text does not fit inside them. */
  function clippedButtons(page: Page) {
    return page
      .locator('button:visible, a.button:visible')
      .evaluateAll((elements) =>
        elements
          .filter(
            (element) =>
              element.scrollWidth > element.clientWidth + 1 || element.scrollHeight > element.clientHeight + 1,
          )
          .map((element) => element.textContent),
      );
  }

  async function lookAt(page: Page, name: string): Promise<void> {
    for (const size of Object.values(SCREENS)) {
      await page.setViewportSize(size);
      expect(await clippedButtons(page), `${name} ${size.width}`).toEqual([]);
    }
    await saveScreenshots(page, name, SCREENS);
  }

  it('speaks German with ?locale=de, whatever the browser asks for: headings, buttons, html lang, no raw keys', async () => {
    const { gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    const { context, page } = await openWithWallet(`${gatewayUrl}?locale=de`, 'en-US');
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.title()).toBe('10,00\u00a0$ an Corner Shop zahlen');
    expect(await page.locator('#amount').textContent()).toBe('10,00\u00a0$');
    expect(await page.locator('.eyebrow').textContent()).toBe('Zahlung an');
    expect(await visibleHeading(page).textContent()).toBe('Zahlungsart wählen');
    // Eleven ways to pay: the first six listed, the rest behind a button that says so in German too.
    expect(await page.getByRole('group', { name: 'Zahlungsart wählen' }).getByRole('radio').count()).toBe(6);
    expect(await page.locator('#time-left-line .label').textContent()).toBe('Verbleibende Zeit');
    expect(await page.locator('#time-left-line').getAttribute('title')).toMatch(/^Noch 1[45] Minuten$/);
    await page.getByText('Diese Seite auf einem anderen Gerät öffnen').click();
    expect(await page.getByRole('img', { name: 'QR-Code des Zahlungslinks' }).count()).toBe(1);
    const chain = devnet.manifest.evm[0]!;
    await expect
      .poll(() => page.locator('#pay-with-title').textContent())
      .toBe(`10 USDC auf ${chain.name} bezahlen mit`);
    expect(await page.getByRole('button', { name: 'Mit einer Browser-Wallet bezahlen' }).isVisible()).toBe(true);
    const panel = page.locator('[data-pay-panel]:not([hidden])');
    expect(await panel.locator('h3').textContent()).toBe('10 USDC aus einer beliebigen Wallet zahlen');
    expect(await panel.getByRole('radio', { name: 'Mit einer Wallet-App scannen' }).isChecked()).toBe(true);
    await panel.getByText('An eine Adresse senden', { exact: true }).click();
    expect(await panel.locator('dt').allTextContents()).toEqual([
      'Adresse',
      'Genauer Betrag',
      'Netzwerk',
      'USDC-Vertrag',
    ]);
    expect(
      await panel
        .getByRole('button', { name: /kopieren$/ })
        .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label'))),
    ).toEqual(['Adresse kopieren', 'Betrag kopieren']);
    await panel.getByText('Mit einer Wallet-App scannen', { exact: true }).click();
    expect(await page.locator('footer').textContent()).toMatch(/^Referenz pay_/);
    expect(await rawKeysOn(page)).toEqual([]);
    await lookAt(page, 'language-de');
    await context.close();
  });

  it('speaks Japanese to a browser that asks for it, and says what happens live in it', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const { context, page } = await openWithWallet(gatewayUrl, 'ja-JP');
    expect(await page.locator('html').getAttribute('lang')).toBe('ja');
    expect(await page.title()).toBe('Corner Shop に $10.00 を支払う');
    expect(await visibleHeading(page).textContent()).toBe('お支払い方法を選択');
    expect(await page.getByRole('group', { name: 'お支払い方法を選択' }).getByRole('radio').count()).toBe(6);
    expect(await page.locator('.divider').textContent()).toBe('または');
    const wallet = page.getByRole('button', { name: 'ブラウザウォレットで支払う' });
    await expect.poll(() => wallet.isVisible()).toBe(true);
    expect(await rawKeysOn(page)).toEqual([]);
    await lookAt(page, 'language-ja');

    // The page's script says a change of status in the page's language (it follows the status from its first check,
    // a moment after the page loads).
    await expect
      .poll(() => traffic.at(-1)!.requests.some((url) => url.includes(`/payment/${paymentId}/status?maxPollMs=`)), {
        timeout: 10_000,
      })
      .toBe(true);
    const cancelled = await call(server, `/v1/gateway/payment/${paymentId}/cancel`, {
      method: 'POST',
      headers: walletHeaders,
    });
    expect(cancelled.status).toBe(200);
    await expect
      .poll(() => visibleHeading(page).textContent(), { timeout: 30_000 })
      .toBe('お支払いはキャンセルされました');
    expect(await page.locator('#status-announcer').textContent()).toBe('お支払いはキャンセルされました。');
    expect(await rawKeysOn(page)).toEqual([]);
    await lookAt(page, 'language-ja-cancelled');
    await context.close();
  });

  it("asks for the buyer's details in the page's language, errors included", async () => {
    const asking = await newPartner(server.db, 'Partner asking for buyer data');
    await setPartnerDataThreshold(server.db, asking.partnerId, { currency: 'USD', amount: 500n });
    const askingMerchant = (await createMerchant(server, asking.apiKey)).id;
    const { gatewayUrl } = await createPayment(server, asking.apiKey, askingMerchant);
    const { context, page } = await openWithWallet(`${gatewayUrl}?locale=de`, 'en-US');
    await page.getByRole('button', { name: 'Mit einer Browser-Wallet bezahlen' }).click();

    const form: FrameLocator = page.frameLocator('iframe[title="Ihre Angaben für diese Zahlung"]');
    await form.getByLabel('Vollständiger Name').fill('Erin Example');
    await form.getByRole('button', { name: 'Weiter' }).click();
    await expect.poll(() => form.getByRole('alert').locator('h2').textContent()).toBe('Bitte prüfen Sie Ihre Angaben');
    expect(await form.getByRole('alert').getByRole('link').allTextContents()).toEqual([
      'Geburtsort: Geben Sie Ihren Geburtsort oder Ihren Wohnort ein',
      'Geburtsdatum: Geben Sie Ihr Geburtsdatum ein',
      'Ich akzeptiere die Bedingungen dieser Zahlung: Akzeptieren Sie die Bedingungen, um fortzufahren',
    ]);
    const frame = page.frames().find((candidate) => candidate.url().includes('/collect/'))!;
    expect(await frame.locator('html').getAttribute('lang')).toBe('de');
    expect(new URL(frame.url()).searchParams.get('locale')).toBe('de');
    expect(await rawKeysOn(frame)).toEqual([]);
    await lookAt(page, 'language-de-details');
    await context.close();
  });

  it('says a payment link is unknown in the language asked for', async () => {
    const context = await browser.newContext({ viewport: SCREENS.phone, locale: 'de-DE' });
    const page = await context.newPage();
    const response = await page.goto(`${server.url}/?pid=pay_nope&locale=zh-CN`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    expect(await page.locator('h1').textContent()).toBe('未找到付款');
    await context.close();
  });

  it("loads only its own language's messages, beside a script that carries none", async () => {
    const requested = traffic.flatMap((entry) => entry.requests).map((url) => new URL(url).pathname);
    const catalogues = requested.filter((path) => /\/assets\/checkout\/messages-/.test(path));
    expect(new Set(catalogues.map((path) => /messages-([A-Za-z-]+)\./.exec(path)?.[1]))).toEqual(new Set(['de', 'ja']));
    const script = requested.find((path) => /\/assets\/checkout\/checkout\.[0-9a-f]+\.js$/.test(path))!;
    const body = await (await fetch(`${server.url}${script}`)).text();
    expect(body).not.toContain('Zum Bezahlen scannen');
    expect(body).not.toContain('Scan to pay');
  });
});
