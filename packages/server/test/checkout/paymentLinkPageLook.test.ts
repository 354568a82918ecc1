import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from '../dashboard/support/dashboardBrowser.ts';
import { createMerchant } from '../support/fixtures.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { launchChromium, recordTraffic, saveScreenshots } from './support/browser.ts';

const SCREENS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;
const NARROWEST = { width: 320, height: 568 };

describe('payment link page in Chromium', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let browser: Browser;
  const headers = () => ({ 'api-key': partner.apiKey, 'merchant-id': merchantId });

  async function newLink(body: object): Promise<{ id: string; url: string }> {
    const created = await call(server, '/v1/payment-links', { method: 'POST', headers: headers(), body });
    if (created.status !== 201) throw new Error(`link not created: ${created.text}`);
    return created.body;
  }

  async function open(url: string, locale = 'en-US') {
    const context = await browser.newContext({ viewport: SCREENS.phone, locale });
    const traffic = recordTraffic(context);
    const page = await context.newPage();
    await page.goto(url);
    return { context, page, traffic };
  }

  /** Checked by axe and photographed in both schemes; nothing scrolls sideways at 320 px. */
  async function lookAt(page: Page, name: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await seriousAxeViolations(page), `${name} ${colorScheme}`).toEqual([]);
      await saveScreenshots(page, `link-${name}-${colorScheme}`, SCREENS);
      await page.setViewportSize(NARROWEST);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at 320 px`).toBe(320);
      await page.setViewportSize(SCREENS.phone);
    }
    await page.emulateMedia({ colorScheme: null });
  }

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (
      await createMerchant(server, partner.apiKey, { merchantName: 'Corner Shop', merchantEmail: 'owner@corner.shop' })
    ).id;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('takes a quantity and leads to the checkout of a new payment for the price times it; the page needs no script', async () => {
    const link = await newLink({
      amount: { unit: 'iso4217/USD', value: '1250' },
      description: 'Coffee beans, single origin, 1 kg',
      quantity: { maximum: 5 },
    });
    const { context, page, traffic } = await open(link.url);
    expect(await page.locator('h1').textContent()).toBe('Corner Shop');
    expect(await page.locator('.amount strong').textContent()).toBe('$12.50');
    // The page is HTML and CSS only.
    expect(traffic.requests.filter((url) => url.endsWith('.js'))).toEqual([]);
    await lookAt(page, 'fixed');
    expect(traffic.consoleErrors).toEqual([]);
    await page.getByLabel('Quantity').selectOption('2');
    await Promise.all([page.waitForURL(/\/pay_/), page.getByRole('button', { name: 'Continue to payment' }).click()]);
    expect(await page.locator('#amount').textContent()).toBe('$25.00');
    await context.close();
  });

  it("says what is wrong with the buyer's amount beside the field, in the buyer's language", async () => {
    const link = await newLink({
      customAmount: { unit: 'iso4217/EUR', minimum: '500', maximum: '20000', preset: '1500' },
      description: 'Support the band',
    });
    for (const [locale, button, problem] of [
      ['en-US', 'Continue to payment', 'The amount must be at least €5.00.'],
      ['de-DE', 'Weiter zur Zahlung', 'Der Betrag muss mindestens 5,00\u00a0€ sein.'],
      ['ja-JP', '支払いに進む', '金額は €5.00 以上にしてください。'],
    ] as const) {
      const { context, page } = await open(link.url, locale);
      expect(await page.locator('#amount').inputValue()).toBe('15.00');
      await page.locator('#amount').fill('4');
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: button }).click()]);
      await expect.poll(() => page.locator('[role="alert"]').textContent()).toBe(problem);
      expect(await page.locator('#amount').getAttribute('aria-invalid')).toBe('true');
      await lookAt(page, `custom-refused-${locale}`);
      await context.close();
    }
  });

  it('says plainly when the link takes no payment: turned off, used up for now, ended, unknown', async () => {
    const off = await newLink({ amount: { unit: 'iso4217/USD', value: '500' }, description: 'Sticker' });
    await call(server, `/v1/payment-links/${off.id}/deactivate`, { method: 'POST', headers: headers() });
    const taken = await newLink({
      amount: { unit: 'iso4217/USD', value: '500' },
      description: 'Concert ticket',
      maxUses: 1,
    });
    const first = await open(taken.url);
    await Promise.all([first.page.waitForURL(/\/pay_/), first.page.getByRole('button').click()]);
    await first.context.close();
    const ended = await newLink({
      amount: { unit: 'iso4217/USD', value: '500' },
      description: 'Early bird',
      expiresAt: Math.floor(Date.now() / 1000) + 60,
    });
    await server.db
      .updateTable('payment_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', ended.id)
      .execute();
    for (const [name, url, heading] of [
      ['inactive', off.url, 'This link takes no payments'],
      ['all-taken', taken.url, 'All taken for now'],
      ['expired', ended.url, 'This link has ended'],
      ['not-found', `${server.url}/l/plink_01JZZZZZZZZZZZZZZZZZZZZZZZ`, 'Payment link not found'],
    ] as const) {
      const { context, page } = await open(url);
      expect(await page.locator('h1, h2').last().textContent(), name).toBe(heading);
      expect(await page.locator('form').count()).toBe(0);
      await lookAt(page, name);
      await context.close();
    }
  });
});
