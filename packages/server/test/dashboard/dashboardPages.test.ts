import { parse } from 'csv-parse/sync';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentItem } from '../../../web/src/dashboard/apiTypes.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { createSignInLink } from '../../src/dashboard/sessions.ts';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import { BASE_ACCOUNT, BASE_USDC, createMerchant, createPayment, transitionsOf } from '../support/fixtures.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { saveDashboardScreenshots } from './support/dashboardBrowser.ts';
import { consoleContext, expectAccessible, LISTED_NETWORKS } from './support/dashboardSession.ts';

/** The newest API version whose payment list filters by `cancelled`: the one the dashboard reads the list under. */
const CANCELLED_STATUS_VERSION = '2026-02-19.preview';

describe('partner dashboard in Chromium: sign in, the payments, a payment, sign out', () => {
  let server: TestServer;
  let partner: TestPartner;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shopId: string;
  let booksId: string;
  let paid: { paymentId: string; referenceId: string; txHash: string };
  let pending: { paymentId: string; referenceId: string };
  let cancelled: { paymentId: string; referenceId: string };
  let otherPayment: { paymentId: string; merchantId: string };
  const consoleProblems: string[] = [];

  const transition = transitionsOf(() => server);

  /**
   * `GET /v1/payments` with the partner's API key: what the dashboard must show for the same query. The dashboard
   * reads the list under the version that filters by `cancelled`, which changes nothing else of it.
   */
  async function listedByApi(query: string) {
    const result = await call(server, `/v1/payments?${query}`, {
      headers: { 'api-key': partner.apiKey, 'pay-version': CANCELLED_STATUS_VERSION },
    });
    expect(result.status).toBe(200);
    return result.body as { data: { paymentId: string }[]; nextCursor: string | null; stats: any };
  }

  const idsOf = (list: { data: { paymentId: string }[] }) => list.data.map((payment) => payment.paymentId);

  /** The payment ids of the list's rows, once the list has loaded. */
  async function shownIds(on: Page = page): Promise<string[]> {
    await on.locator('.pager').waitFor();
    return on
      .locator('tr[data-payment-id]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-payment-id')!));
  }

  const newDashboardContext = () => consoleContext(browser, consoleProblems);

  beforeAll(async () => {
    server = await startTestServer({
      env: { DASHBOARD_SIGN_IN_MAX: '1000' },
      context: { chains: new ChainRegistry(LISTED_NETWORKS) },
    });
    partner = await newPartner(server.db, 'Dashboard partner');
    shopId = (
      await createMerchant(server, partner.apiKey, { merchantName: 'Corner Shop', merchantEmail: 'a@shop.example' })
    ).id;
    booksId = (
      await createMerchant(server, partner.apiKey, { merchantName: 'Book Nook', merchantEmail: 'b@books.example' })
    ).id;
    for (const [index, value] of ['1000', '2500', '99999', '123456789012'].entries()) {
      await createPayment(server, partner.apiKey, shopId, {
        referenceId: `shop-order-${index}`,
        amount: { unit: 'iso4217/USD', value },
      });
    }
    await createPayment(server, partner.apiKey, booksId, {
      referenceId: 'books-yen-1',
      amount: { unit: 'iso4217/JPY', value: '1500' },
    });
    await createPayment(server, partner.apiKey, booksId, {
      referenceId: 'books-dinar-1',
      amount: { unit: 'iso4217/KWD', value: '12345' },
    });
    const processing = await createPayment(server, partner.apiKey, booksId, { referenceId: 'books-processing' });
    await changePaymentStatus(transition, processing.paymentId, 'processing');

    const txHash = `0x${randomBytes(32).toString('hex')}`;
    const paidPayment = await createPayment(server, partner.apiKey, shopId, {
      referenceId: 'shop-paid-1',
      amount: { unit: 'iso4217/USD', value: '1234567' },
    });
    const paidColumns = {
      network: 'eip155:8453',
      token_asset: BASE_USDC,
      token_symbol: 'USDC',
      token_value: '12345670000',
      tx_hash: txHash,
      buyer_account: BASE_ACCOUNT,
      buyer_provider_name: 'Test Wallet',
    };
    await changePaymentStatus(transition, paidPayment.paymentId, 'processing', paidColumns);
    await changePaymentStatus(transition, paidPayment.paymentId, 'succeeded', {
      exceptions: JSON.stringify([
        {
          id: 'exc_dashboardtest1',
          type: 'overpaid',
          network: 'eip155:8453',
          asset: BASE_USDC,
          amount: '500000',
          txHash,
          from: BASE_ACCOUNT,
          at: new Date().toISOString(),
        },
      ]) as never,
    });
    paid = { paymentId: paidPayment.paymentId, referenceId: 'shop-paid-1', txHash };
    pending = {
      paymentId: (await createPayment(server, partner.apiKey, shopId, { referenceId: 'shop-pending-1' })).paymentId,
      referenceId: 'shop-pending-1',
    };
    cancelled = {
      paymentId: (await createPayment(server, partner.apiKey, booksId, { referenceId: 'books-cancelled-1' })).paymentId,
      referenceId: 'books-cancelled-1',
    };
    const cancel = await call(server, `/v1/payments/${cancelled.paymentId}/cancel`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'merchant-id': booksId },
    });
    expect(cancel.status, cancel.text).toBe(200);

    const other = await newPartner(server.db, 'Another partner');
    const otherMerchant = await createMerchant(server, other.apiKey);
    otherPayment = {
      paymentId: (await createPayment(server, other.apiKey, otherMerchant.id)).paymentId,
      merchantId: otherMerchant.id,
    };

    browser = await launchChromium();
    context = await newDashboardContext();
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('signs in with an API key through the form, after saying in words that a wrong key is refused', async () => {
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/dashboard');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'sign-in');

    const keyField = page.getByLabel('API key');
    expect(await keyField.getAttribute('type')).toBe('password');
    await keyField.fill('pk_not_a_key_of_this_service');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('That API key is not valid or has been revoked.');

    await keyField.fill(partner.apiKey);
    await keyField.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/overview');
    expect(await page.locator('header').textContent()).toContain('Partner Dashboard partner');
    expect(await page.locator('header .partner [title]').getAttribute('title')).toBe(partner.partnerId);
    // The session's cookie is out of the page's reach.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'paygate_session', httpOnly: true, sameSite: 'Strict' });
  });

  it('lists the payments and their statistics as the API does, and shows a new payment without reloading', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    const listed = await listedByApi('');
    expect(await shownIds()).toEqual(idsOf(listed));
    const figure = (term: string) => page.locator('.figures div', { has: page.locator(`dt:text-is("${term}")`) });
    expect(await figure('Payments').locator('dd').textContent()).toBe(String(listed.stats.totalTransactions));
    expect(await figure('Revenue').locator('dd').textContent()).toBe('$12,345.67');
    // Amounts from minor units with the currency's own digits, exact beyond what a float holds.
    const amountOf = async (referenceId: string) =>
      page
        .locator('tr', { has: page.getByRole('link', { name: referenceId, exact: true }) })
        .locator('td.amount')
        .textContent();
    expect(await amountOf('shop-order-3')).toBe('$1,234,567,890.12');
    expect(await amountOf('books-yen-1')).toBe('¥1,500');
    expect(await amountOf('books-dinar-1')).toBe('KWD\u00a012.345');
    // Each payment counted once, under the status it shows: the API's failed count takes in the cancelled ones.
    const apiCount = async (status: string) =>
      (await listedByApi(`status=${status}&limit=1`)).stats.totalTransactions as number;
    const cancelledCount = await apiCount('cancelled');
    expect(cancelledCount).toBe(1);
    const shownCounts: Record<string, number> = {
      'Awaiting payment': await apiCount('requires_action'),
      Processing: await apiCount('processing'),
      Succeeded: await apiCount('succeeded'),
      Failed: (await apiCount('failed')) - cancelledCount,
      Expired: await apiCount('expired'),
      Cancelled: cancelledCount,
    };
    const countsShown = await page
      .locator('.status-counts a')
      .evaluateAll((links) => links.map((link) => link.textContent));
    expect(countsShown).toEqual(Object.entries(shownCounts).map(([status, count]) => `${status} ${count}`));
    expect(Object.values(shownCounts).reduce((sum, count) => sum + count, 0)).toBe(listed.stats.totalTransactions);
    // A cancelled payment reads Cancelled in the list, not Failed.
    const statusOf = (paymentId: string) =>
      page.locator(`tr[data-payment-id="${paymentId}"] td[data-label="Status"]`).textContent();
    expect(await statusOf(cancelled.paymentId)).toBe('Cancelled');
    expect(await statusOf(paid.paymentId)).toBe('Succeeded');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'payments');

    await page.evaluate(() => {
      (window as any).sameDocument = true;
    });
    const created = await createPayment(server, partner.apiKey, booksId, { referenceId: 'books-live-1' });
    await expect
      .poll(() => page.locator(`tr[data-payment-id="${created.paymentId}"]`).count(), { timeout: 15_000 })
      .toBe(1);
    expect(await page.evaluate(() => (window as any).sameDocument)).toBe(true);
    expect(await shownIds()).toEqual(idsOf(await listedByApi('')));
  });

  it('filters by status, merchant, network, source and reference search, keeping them in the address, rows as the API lists them', async () => {
    const apply = async (change: () => Promise<void>) => {
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.waitForURL((url) => url.search === '');
      await change();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL((url) => url.search !== '');
      await page.locator('.loading').waitFor({ state: 'detached' });
    };
    const expectRowsOfQuery = async (query: string) => {
      expect(new URLSearchParams(new URL(page.url()).search).toString()).toBe(new URLSearchParams(query).toString());
      const listed = await listedByApi(query);
      expect(listed.data.length).toBeGreaterThan(0);
      await expect.poll(() => shownIds()).toEqual(idsOf(listed));
      expect(await page.locator('.figures dd').first().textContent()).toBe(String(listed.stats.totalTransactions));
    };

    await apply(() => page.getByRole('checkbox', { name: 'Succeeded' }).check());
    await expectRowsOfQuery('status=succeeded');

    await apply(() => page.getByRole('checkbox', { name: 'Cancelled' }).check());
    await expectRowsOfQuery('status=cancelled');
    expect(await shownIds()).toEqual([cancelled.paymentId]);
    expect(await page.locator('.status-counts a[aria-current="true"]').textContent()).toBe('Cancelled 1');

    await apply(async () => {
      await page.getByRole('checkbox', { name: 'Succeeded' }).check();
      await page.getByRole('checkbox', { name: 'Processing' }).check();
    });
    await expectRowsOfQuery('status=processing&status=succeeded');

    await apply(() => page.getByLabel('Search').fill('yen'));
    await expectRowsOfQuery('search=yen');
    expect(await shownIds()).toHaveLength(1);
    // A transaction hash as an explorer shows it, in capitals, and a payment id find their payment.
    await apply(() => page.getByLabel('Search').fill(paid.txHash.toUpperCase().replace('0X', '0x')));
    await expect.poll(() => shownIds()).toEqual([paid.paymentId]);
    await apply(() => page.getByLabel('Search').fill(pending.paymentId));
    await expect.poll(() => shownIds()).toEqual([pending.paymentId]);

    await apply(() =>
      page
        .getByLabel('Merchant', { exact: true })
        .selectOption({ label: 'Book Nook' })
        .then(() => undefined),
    );
    await expectRowsOfQuery(`merchantId=${booksId}`);

    await apply(() => page.getByRole('checkbox', { name: 'Base' }).check());
    await expectRowsOfQuery('network=eip155%3A8453');

    const today = new Date().toISOString().slice(0, 10);
    await apply(async () => {
      await page.getByLabel('From (UTC day)').fill(today);
      await page.getByLabel('To (UTC day, included)').fill(today);
    });
    const tomorrow = new Date(Date.parse(today) + 86_400_000).toISOString();
    await expectRowsOfQuery(`startTs=${today}T00:00:00.000Z&endTs=${tomorrow}`);

    await apply(() =>
      page
        .getByLabel('Order')
        .selectOption({ label: 'Largest amount first' })
        .then(() => undefined),
    );
    await expectRowsOfQuery('sortBy=amount&sortDir=desc');

    await apply(() =>
      page
        .getByLabel('Source')
        .selectOption({ label: 'API (checkout)' })
        .then(() => undefined),
    );
    await expectRowsOfQuery('source=api');

    // A reload, or the address shared, shows the same list.
    await apply(() => page.getByLabel('Search').fill('shop-order'));
    const filtered = page.url();
    await page.reload();
    expect(page.url()).toBe(filtered);
    await expectRowsOfQuery('search=shop-order');
    expect(await page.getByLabel('Search').inputValue()).toBe('shop-order');
    await saveDashboardScreenshots(page, 'payments-filtered');
  });

  it("exports the list's filters and order as a CSV download, every row as the API lists it, exact minor units", async () => {
    const filters = `merchantId=${shopId}&sortBy=amount&sortDir=asc`;
    // A page of two: the export is not one page but the whole filtered set.
    await page.goto(`${server.url}/dashboard/payments?${filters}&limit=2`);
    await page.locator('.pager').waitFor();
    const link = page.getByRole('link', { name: 'Export CSV' });
    expect(new URL((await link.getAttribute('href'))!, server.url).search).toBe(`?${filters}`);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^payments-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = parse(await fs.readFile((await download.path())!, 'utf8'), { columns: true }) as Record<
      string,
      string
    >[];

    const listed: PaymentItem[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const answer = await listedByApi(`${filters}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      listed.push(...(answer.data as PaymentItem[]));
      cursor = answer.nextCursor;
    }
    expect(listed.length).toBeGreaterThan(2);
    expect(
      rows.map((row) => [
        row.paymentId,
        row.referenceId,
        row.merchantId,
        row.status,
        row.fiatCurrency,
        row.fiatAmountMinor,
      ]),
    ).toEqual(
      listed.map((payment) => [
        payment.paymentId,
        payment.referenceId,
        payment.merchant.id,
        payment.status,
        payment.fiatAmount!.unit.replace('iso4217/', ''),
        payment.fiatAmount!.value,
      ]),
    );
    // Beyond what a float holds, to the last digit.
    expect(rows.map((row) => row.fiatAmountMinor)).toContain('123456789012');
    await expectAccessible(page);

    // The cancelled payments, a filter of the list's own API version, export too.
    await page.goto(`${server.url}/dashboard/payments?status=cancelled`);
    await page.locator('.pager').waitFor();
    const [cancelledDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(cancelledDownload.suggestedFilename()).toMatch(/^payments-\d{4}-\d{2}-\d{2}\.csv$/);
    const cancelledRows = parse(await fs.readFile((await cancelledDownload.path())!, 'utf8'), {
      columns: true,
    }) as Record<string, string>[];
    expect(cancelledRows.map((row) => row.paymentId)).toEqual([cancelled.paymentId]);
  });

  it('pages with a small limit: Next and Previous show the pages the API gives for its cursors', async () => {
    const first = await listedByApi('limit=2');
    const second = await listedByApi(`limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`);
    await page.goto(`${server.url}/dashboard/payments?limit=2`);
    expect(await shownIds()).toEqual(idsOf(first));
    expect(await page.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);

    // By keyboard: the new page's rows take the focus, as the button pressed is replaced.
    await page.getByRole('button', { name: 'Next' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.searchParams.has('cursor'));
    await expect.poll(() => shownIds()).toEqual(idsOf(second));
    expect(await page.locator('.pager').textContent()).toContain('Page 2');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('payment-rows');

    await page.getByRole('button', { name: 'Previous' }).click();
    await page.waitForURL((url) => !url.searchParams.has('cursor'));
    await expect.poll(() => shownIds()).toEqual(idsOf(first));
  });

  it("opens a payment's page: amounts, buyer, transaction with its explorer link and exceptions", async () => {
    await page.goto(`${server.url}/dashboard/payments?referenceId=shop-paid`);
    await page.getByRole('link', { name: paid.referenceId, exact: true }).click();
    await page.getByRole('heading', { name: `Payment ${paid.referenceId}`, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/payments/${paid.paymentId}`);
    const main = page.locator('main');
    expect(await main.locator('.payment-status').textContent()).toContain('Succeeded');
    expect(await main.textContent()).toContain('$12,345.67');
    expect(await main.textContent()).toContain('12345.67 USDC on Base');
    expect(await main.textContent()).toContain(BASE_ACCOUNT);
    expect(await main.textContent()).toContain('Overpaid');
    const explorerLinks = await main
      .locator(`a[href="https://basescan.org/tx/${paid.txHash}"]`)
      .evaluateAll((links) => links.map((link) => link.getAttribute('rel')));
    expect(explorerLinks.length).toBeGreaterThan(0);
    expect(explorerLinks.every((rel) => rel === 'noopener noreferrer')).toBe(true);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'payment');
  });

  it("follows a pending payment's status by itself", async () => {
    await page.goto(`${server.url}/dashboard/payments/${pending.paymentId}?merchantId=${shopId}`);
    await page.getByRole('heading', { name: `Payment ${pending.referenceId}` }).waitFor();
    expect(await page.locator('.payment-status').textContent()).toContain('Awaiting payment');
    await saveDashboardScreenshots(page, 'payment-pending');
    await changePaymentStatus(transition, pending.paymentId, 'processing');
    await expect.poll(() => page.locator('.payment-status').textContent(), { timeout: 15_000 }).toContain('Processing');
  });

  it("answers another partner's payment id with Payment not found, with or without its merchant", async () => {
    for (const path of [
      `/dashboard/payments/${otherPayment.paymentId}?merchantId=${otherPayment.merchantId}`,
      `/dashboard/payments/${otherPayment.paymentId}`,
    ]) {
      await page.goto(`${server.url}${path}`);
      await page.getByRole('heading', { name: 'Payment not found', level: 1 }).waitFor();
      expect(await page.locator('main').textContent()).not.toContain(otherPayment.merchantId);
    }
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'payment-not-found');
  });

  it('signs in with a one-time link once; the same link again is refused in words', async () => {
    const link = await createSignInLink(server.db, partner.partnerId, 15 * 60_000, new Date());
    const first = await newDashboardContext();
    const linked = await first.newPage();
    await linked.goto(`${server.url}/dashboard/link/${link.token}`);
    await linked.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await linked.locator('header').textContent()).toContain('Partner Dashboard partner');
    await linked.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payments' }).click();
    expect(await shownIds(linked)).toEqual(idsOf(await listedByApi('')));
    await first.close();

    const second = await newDashboardContext();
    const refused = await second.newPage();
    await refused.goto(`${server.url}/dashboard/link/${link.token}`);
    await refused.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(await refused.locator('.notice').textContent()).toBe(
      'This sign-in link has been used or has expired; ask your operator for a new one (paygate dashboard-link)',
    );
    await expectAccessible(refused);
    await saveDashboardScreenshots(refused, 'sign-in-link-spent');
    await second.close();
  });

  it('signs out: back to the sign-in page, and the old cookie then gets 401 from the API', async () => {
    await page.goto(`${server.url}/dashboard/payments`);
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    const cookie = (await context.cookies()).find((each) => each.name === 'paygate_session')!;
    const withCookie = { cookie: `paygate_session=${cookie.value}` };
    expect((await call(server, '/v1/payments', { headers: withCookie })).status).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(await context.cookies()).toEqual([]);
    const after = await call(server, '/v1/payments', { headers: withCookie });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('invalid_session');
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
  });

  it('keeps to its own scripts: no policy violation or script error on any page', () => {
    expect(consoleProblems).toEqual([]);
  });
});

describe('dashboard sign-in limit', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer({ env: { DASHBOARD_SIGN_IN_MAX: '2' } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('says how long to wait, from Retry-After, once the attempts are spent', async () => {
    const page = await browser.newPage({ locale: 'en-US' });
    await page.goto(`${server.url}/dashboard/sign-in`);
    const alert = page.getByRole('alert');
    for (let attempt = 1; attempt <= 3; attempt++) {
      await page.getByLabel('API key').fill(`pk_wrong_${attempt}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await alert.waitFor();
      if (attempt < 3) expect(await alert.textContent()).toBe('That API key is not valid or has been revoked.');
    }
    // 15 minutes by default (DASHBOARD_SIGN_IN_WINDOW_MS).
    await expect
      .poll(() => alert.textContent())
      .toMatch(/^Too many sign-in attempts from this address\. Try again in 1[45] minutes\.$/);
  });
});
