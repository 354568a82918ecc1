import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CornerShop, startCornerShop } from '../checkout/support/cornerShop.ts';
import { decodeQr } from '../checkout/support/browser.ts';
import { saveDashboardScreenshots, seriousAxeViolations } from '../dashboard/support/dashboardBrowser.ts';
import { consoleContext, signedInDashboard } from '../dashboard/support/dashboardSession.ts';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { transitionsOf } from '../support/fixtures.ts';
import { childEnv } from '../support/serverProcess.ts';
import { call } from '../support/testServer.ts';

/** Screenshots for a person to look at, in a git-ignored folder. */
const ARTIFACTS_DIR = fileURLToPath(new URL('../../test-artifacts/pos/', import.meta.url));
const TABLET = { width: 1024, height: 768 };
const VIEWPORTS = { tablet: TABLET, phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };
const WALLET_BIN = fileURLToPath(new URL('../../../wallet/bin/paygate-wallet.js', import.meta.url));

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

/** The page at each size, checked to scroll no sideways; axe on the page as it is, at the tablet size. */
async function capture(page: Page, name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS_DIR, { recursive: true });
  expect(await seriousAxeViolations(page), name).toEqual([]);
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth, `${name} on a ${label}`).toBeLessThanOrEqual(size.width);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(TABLET);
}

describe('point of sale in Chromium at a tablet size, on the devnet', () => {
  let shop: CornerShop;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  /** The partner's dashboard, on the merchant's page, in a browser context of its own. */
  let dashboard: Page;

  /** Pairs a device from the dashboard's Point of sale section; answers the pairing link it shows (and its QR code's). */
  async function pairFromDashboard(): Promise<string> {
    await dashboard.getByText('Pair a device').click();
    await dashboard.getByLabel('Device', { exact: true }).fill('Front till');
    await dashboard.getByRole('button', { name: 'Make a pairing link' }).click();
    const linkField = dashboard.getByRole('textbox', { name: 'Pairing link' });
    await linkField.waitFor();
    const link = await linkField.inputValue();
    const qr = dashboard.getByRole('img', { name: 'QR code of the pairing link' });
    await qr.locator('svg').waitFor();
    expect(await decodeQr(await qr.screenshot())).toBe(link);
    return link;
  }

  const press = async (keys: string) => {
    for (const key of keys) await page.getByRole('button', { name: key, exact: true }).click();
  };

  beforeAll(async () => {
    shop = await startCornerShop();
    context = await shop.browser.newContext({ viewport: TABLET, locale: 'en-US', timezoneId: 'UTC' });
    context.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        problems.push(message.text());
      }
    });
    context.on('weberror', (error) => problems.push(String(error.error())));
    page = await context.newPage();
    const dashboardContext = await consoleContext(shop.browser, problems);
    dashboard = await signedInDashboard(shop.server, dashboardContext, shop.partner.partnerId);
    await dashboard.goto(`${shop.server.url}/dashboard/merchants/${shop.merchantId}`);
    await dashboard.getByRole('heading', { name: 'Point of sale' }).waitFor();
  });
  afterAll(async () => {
    await dashboard?.context().close();
    await context?.close();
    await shop?.close();
  });

  it('says how to pair when the device is not paired', async () => {
    await page.goto(`${shop.server.url}/pos`);
    await page.getByRole('heading', { name: 'Pair this device' }).waitFor();
    await capture(page, 'unpaired');
  });

  it('pairs by its link, charges 12.34 USD with a 15% tip, shows the QR code, and turns to paid when paygate-wallet pays', async () => {
    const pairingLink = await pairFromDashboard();
    expect(await seriousAxeViolations(dashboard)).toEqual([]);
    await saveDashboardScreenshots(dashboard, 'point-of-sale-pairing');
    await page.goto(pairingLink);
    await page.getByRole('button', { name: /^Charge / }).waitFor();
    // The token leaves the address bar at once.
    expect(page.url()).toBe(`${shop.server.url}/pos`);
    await expect.poll(() => page.locator('.bar').textContent()).toBe('Corner ShopFront till');
    await capture(page, 'till-empty');

    await press('1234');
    await expect.poll(() => page.getByLabel('Amount').textContent()).toBe('$12.34');
    await page.getByRole('button', { name: /^15%/ }).click();
    await page.getByLabel('Note or reference (optional)').fill('Table 4');
    const chargeButton = page.getByRole('button', { name: 'Charge $14.19' });
    expect(await chargeButton.isEnabled()).toBe(true);
    expect(await page.getByText('$12.34 + tip $1.85').isVisible()).toBe(true);
    await capture(page, 'till-entered');

    await chargeButton.click();
    await page.getByRole('heading', { name: '$14.19' }).waitFor();
    await page.locator('.payment-qr svg').waitFor();
    const paymentUrl = await decodeQr(await page.locator('.payment-qr').screenshot());
    expect(paymentUrl).toMatch(new RegExp(`^${shop.server.url}/pay_`));
    expect(await page.getByRole('status').textContent()).toBe('Scan with any wallet to pay');
    await capture(page, 'charge-waiting');

    const paid = await runWalletCli([
      'pay',
      paymentUrl as string,
      '--gateway-url',
      shop.server.url,
      ...['--app-id', shop.walletHeaders['app-id']!, '--client-id', 'cli-1'],
      ...['--devnet-dir', shop.testService.devnetDir, '--buyer', 'bob'],
      ...['--network', shop.devnet.manifest.evm[0]!.caip2, '--token', 'USDC'],
    ]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout)).toMatchObject({ status: 'succeeded' });
    await page.getByRole('heading', { name: 'Paid $14.19' }).waitFor({ timeout: 30_000 });
    expect(await page.getByText('Including a tip of $1.85').isVisible()).toBe(true);
    await page.locator('.receipt-qr svg').waitFor();
    const receiptUrl = await decodeQr(await page.locator('.receipt-qr').screenshot());
    expect(receiptUrl).toBe(`${shop.server.url}/pos/receipts/${paymentUrl?.split('/').at(-1)}`);
    expect(await page.getByRole('link', { name: 'Open the receipt page' }).getAttribute('href')).toBe(receiptUrl);
    await capture(page, 'paid');

    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('.printed-receipt').isVisible()).toBe(true);
    expect(await page.locator('.printed-receipt').textContent()).toContain('Table 4');
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'receipt-printed-tablet.png'), fullPage: true });
    await page.emulateMedia({ media: 'screen' });

    const receipt = await context.newPage();
    await receipt.goto(receiptUrl as string);
    const text = await receipt.locator('main').textContent();
    expect(text).toContain('Corner Shop');
    expect(text).toContain('Paid');
    expect(text).toMatch(/Amount\s*12\.34 USD/);
    expect(text).toMatch(/Tip\s*1\.85 USD/);
    expect(text).toMatch(/Total\s*14\.19 USD/);
    expect(text).not.toContain('Table 4');
    await capture(receipt, 'receipt-page');
    await receipt.close();
  });

  it('shows a cancelled charge as not paid, unmistakably', async () => {
    await page.getByRole('button', { name: 'New sale' }).click();
    await press('500');
    await page.getByRole('button', { name: 'No tip' }).click();
    await page.getByRole('button', { name: 'Charge $5.00' }).click();
    await page.getByRole('button', { name: 'Cancel charge' }).click();
    await page.getByRole('heading', { name: 'Not paid' }).waitFor();
    expect(await page.getByText('The charge was cancelled. $5.00 was not taken.').isVisible()).toBe(true);
    await capture(page, 'not-paid');
  });

  it("lists today's payments with totals, and cancels a pending one from there", async () => {
    await page.getByRole('button', { name: 'New sale' }).click();
    await press('250');
    await page.getByRole('button', { name: 'Charge $2.50' }).click();
    await page.locator('.payment-qr svg').waitFor();
    await page.goto(`${shop.server.url}/pos`);
    await page.getByRole('button', { name: 'Today’s payments' }).click();
    await page.getByRole('heading', { name: 'Today’s payments' }).waitFor();
    await page.locator('table.charges').waitFor();
    const rows = page.locator('table.charges tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await page.locator('.totals').textContent()).toMatch(
      /Taken\s*\$14\.19\s*Of which tips\s*\$1\.85\s*Paid\s*1\s*Waiting\s*1/,
    );
    await capture(page, 'today');
    // The waiting charge's QR code again, as the buyer may still pay it.
    await page.getByRole('button', { name: 'Show the charge of $2.50' }).click();
    await page.getByRole('heading', { name: '$2.50' }).waitFor();
    await page.locator('.payment-qr svg').waitFor();
    await page.goto(`${shop.server.url}/pos`);
    await page.getByRole('button', { name: 'Today’s payments' }).click();
    await page.locator('table.charges').waitFor();
    await page.getByRole('button', { name: 'Cancel the charge of $2.50' }).click();
    await expect.poll(() => rows.first().getAttribute('data-status')).toBe('cancelled');
    expect(await page.locator('.totals').textContent()).toMatch(/Waiting\s*0/);
  });

  it('opens offline from its service worker, and says charges need a connection', async () => {
    const manifest = await call(shop.server, '/pos/manifest.webmanifest');
    expect(manifest.body).toMatchObject({ start_url: '/pos', display: 'standalone' });
    await page.goto(`${shop.server.url}/pos`);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    // The worker controls the page once it has claimed it; the next load comes through it.
    await page.reload();
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    await context.setOffline(true);
    await page.reload();
    await page.getByRole('heading', { name: 'No connection' }).waitFor();
    await capture(page, 'offline');
    await context.setOffline(false);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('button', { name: /^Charge / }).waitFor();
  });

  it('is listed in the dashboard, and stops at once when revoked there', async () => {
    await dashboard.getByRole('button', { name: 'Done' }).click();
    const row = dashboard.locator('tr', { hasText: 'Front till' });
    await expect.poll(() => row.locator('td[data-label="Status"]').textContent()).toMatch(/^Paired /);
    expect(await seriousAxeViolations(dashboard)).toEqual([]);
    await saveDashboardScreenshots(dashboard, 'point-of-sale-devices');
    await dashboard.getByRole('button', { name: 'Revoke Front till' }).click();
    await dashboard.getByRole('button', { name: 'Yes, revoke the device' }).click();
    await expect.poll(() => row.locator('td[data-label="Status"]').textContent()).toMatch(/^Revoked /);

    await page.getByRole('button', { name: 'Today’s payments' }).click();
    await page.getByRole('heading', { name: 'Pair this device' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toBe('This device was unpaired from the dashboard.');
    expect(await page.evaluate(() => localStorage.getItem('paygate.pos.deviceKey'))).toBeNull();
    await capture(page, 'revoked');
    expect(problems).toEqual([]);
  });

  it('writes the payment link to an NFC tag as one NDEF URI record where the browser has Web NFC', async () => {
    const paired = await call(shop.server, '/v1/point-of-sale/devices', {
      method: 'POST',
      headers: { 'api-key': shop.partner.apiKey },
      body: { merchantId: shop.merchantId, name: 'Counter phone' },
    });
    const nfcContext = await shop.browser.newContext({ viewport: TABLET, locale: 'en-US' });
    // Chromium has Web NFC on Android only: this stands in for the tag reader, keeping what the page writes.
    await nfcContext.addInitScript(() => {
      const written: unknown[] = [];
      (window as any).writtenToTags = written;
      (window as any).NDEFReader = class {
        async write(message: unknown) {
          written.push(message);
        }
      };
    });
    const nfcPage = await nfcContext.newPage();
    await nfcPage.goto(paired.body.pairingUrl);
    await nfcPage.getByRole('button', { name: '7', exact: true }).click();
    await nfcPage.getByRole('button', { name: /^Charge / }).click();
    await nfcPage.getByRole('button', { name: 'Write to NFC tag' }).click();
    await nfcPage.getByText('Written: the buyer can tap the tag.').waitFor();
    const paymentUrl = await decodeQr(await nfcPage.locator('.payment-qr').screenshot());
    expect(await nfcPage.evaluate(() => (window as any).writtenToTags)).toEqual([
      { records: [{ recordType: 'url', data: paymentUrl }] },
    ]);
    await capture(nfcPage, 'charge-nfc');

    // Moved as the chain follower moves a payment whose transfer was sent: the till says it is on its way.
    await changePaymentStatus(
      transitionsOf(() => shop.server),
      paymentUrl?.split('/').at(-1) as string,
      'processing',
      {
        network: shop.devnet.manifest.evm[0]!.caip2,
        tx_hash: `0x${'ab'.repeat(32)}`,
      },
    );
    await expect.poll(() => nfcPage.getByRole('status').textContent()).toBe('Payment on its way…');
    expect(await nfcPage.getByRole('button', { name: 'Cancel charge' }).count()).toBe(0);
    await capture(nfcPage, 'charge-processing');
    await nfcContext.close();
  });
});
