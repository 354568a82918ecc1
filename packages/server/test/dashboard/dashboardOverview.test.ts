import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatStatsTotal } from '../../../web/src/dashboard/paymentFormat.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { fiatCurrency } from '../../src/payments/currencies.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import { BASE_ACCOUNT, BASE_ACCOUNT_2, BASE_USDC } from '../support/fixtures.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { saveDashboardScreenshots } from './support/dashboardBrowser.ts';
import {
  consoleContext,
  expectAccessible,
  LISTED_NETWORKS,
  minorOf,
  signedInDashboard,
} from './support/dashboardSession.ts';

const DAY_MS = 86_400_000;
const BASE = 'eip155:8453';
const ETHEREUM = 'eip155:1';
const ETHEREUM_USDC = 'eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

/** Payments of the test, by days before today: [days ago, status, currency, minor units, token, network, buyer]. */
const PAYMENTS = [
  [0, 'succeeded', 'USD', '1250', 'USDC', BASE, BASE_ACCOUNT],
  [0, 'requires_action', 'USD', '999', null, null, null],
  [1, 'succeeded', 'USD', '123456789012', 'USDC', ETHEREUM, BASE_ACCOUNT_2],
  [2, 'succeeded', 'USD', '5', 'USDT', BASE, BASE_ACCOUNT],
  [2, 'failed', 'USD', '700', 'USDC', BASE, null],
  [3, 'succeeded', 'JPY', '1500', 'USDC', BASE, BASE_ACCOUNT_2],
  [5, 'processing', 'USD', '400', 'USDC', BASE, BASE_ACCOUNT],
  [9, 'succeeded', 'USD', '2500', 'USDC', BASE, BASE_ACCOUNT],
  [12, 'succeeded', 'KWD', '12345', 'USDC', ETHEREUM, BASE_ACCOUNT],
  [20, 'expired', 'USD', '100', null, null, null],
  [40, 'succeeded', 'USD', '77777', 'USDC', BASE, BASE_ACCOUNT],
] as const;

const today = () => new Date().toISOString().slice(0, 10);
const dayBefore = (days: number) => new Date(Date.parse(today()) - days * DAY_MS).toISOString().slice(0, 10);

describe('dashboard overview in Chromium: the API’s figures for a range, and revenue per day', () => {
  let server: TestServer;
  let partner: TestPartner;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleProblems: string[] = [];

  /** The range's API query: UTC days, `endTs` the day after the last. */
  const rangeQuery = (from: string, to: string) =>
    new URLSearchParams({
      startTs: `${from}T00:00:00.000Z`,
      endTs: new Date(Date.parse(to) + DAY_MS).toISOString(),
    });

  async function apiStats(query: URLSearchParams) {
    const result = await call(server, `/v1/payments?limit=1&${query}`, { headers: { 'api-key': partner.apiKey } });
    expect(result.status).toBe(200);
    return result.body.stats as {
      totalRevenue: { amount: number; currency: string }[];
      totalRefunded: { amount: number; currency: string }[];
      totalTransactions: number;
      totalCustomers: number;
    };
  }

  const figure = (term: string) =>
    page.locator('.figures div', { has: page.locator(`dt:text-is("${term}")`) }).locator('dd');

  /** The page's figures, counts by status and chart equal the API's for the range the address shows. */
  async function expectFiguresOfRange(from: string, to: string) {
    const query = rangeQuery(from, to);
    const stats = await apiStats(query);
    await expect.poll(() => figure('Payments').textContent()).toBe(String(stats.totalTransactions));
    expect(await figure('Customers').textContent()).toBe(String(stats.totalCustomers));
    const formatted = (totals: { amount: number; currency: string }[]) =>
      totals.length ? totals.map((total) => formatStatsTotal(total, 'en-US')) : ['None'];
    expect(await figure('Revenue').locator('.total').allTextContents()).toEqual(
      stats.totalRevenue.map((total) => formatStatsTotal(total, 'en-US')),
    );
    expect(
      (await figure('Refunded').locator('.total').allTextContents()).concat(
        stats.totalRefunded.length ? [] : [(await figure('Refunded').textContent()) ?? ''],
      ),
    ).toEqual(formatted(stats.totalRefunded));
    const statuses: [string, string][] = [
      ['requires_action', 'Awaiting payment'],
      ['processing', 'Processing'],
      ['succeeded', 'Succeeded'],
      ['failed', 'Failed'],
      ['expired', 'Expired'],
    ];
    for (const [status, label] of statuses) {
      const counted = await apiStats(new URLSearchParams([...query, ['status', status]]));
      const link = page.locator('.status-counts a', { hasText: label });
      expect(await link.locator('strong').textContent()).toBe(String(counted.totalTransactions));
      const linked = new URL((await link.getAttribute('href'))!, server.url);
      expect([linked.pathname, linked.searchParams.toString()]).toEqual([
        '/dashboard/payments',
        new URLSearchParams([...query, ['status', status]]).toString(),
      ]);
    }

    // Each currency's series (the legend's exact totals, the table's days) add up to the API's revenue.
    const charted = await page.locator('.currency-revenue').evaluateAll((sections) =>
      sections.map((section) => ({
        currency: section.getAttribute('data-currency')!,
        series: Array.from(section.querySelectorAll('.series-total'), (data) => (data as HTMLDataElement).value),
        days: Array.from(
          section.querySelectorAll('tbody td:last-child data'),
          (data) => (data as HTMLDataElement).value,
        ),
        canvases: section.querySelectorAll('.chart canvas').length,
      })),
    );
    expect(charted.map((chart) => chart.currency)).toEqual(stats.totalRevenue.map((total) => total.currency));
    for (const [index, total] of stats.totalRevenue.entries()) {
      const expected = minorOf(total.amount, fiatCurrency(total.currency)!.decimals);
      const chart = charted[index]!;
      expect(chart.series.reduce((sum, value) => sum + BigInt(value), 0n)).toBe(expected);
      expect(chart.days.reduce((sum, value) => sum + BigInt(value), 0n)).toBe(expected);
      expect(chart.canvases).toBeGreaterThan(0);
    }
    return { stats, charted };
  }

  beforeAll(async () => {
    server = await startTestServer({ context: { chains: new ChainRegistry(LISTED_NETWORKS) } });
    partner = await newPartner(server.db, 'Overview partner');
    const merchantId = `mrch_overview_${Date.now()}`;
    await server.db
      .insertInto('merchants')
      .values({ id: merchantId, partner_id: partner.partnerId, name: 'Overview shop', email: 'o@shop.example' })
      .execute();
    const now = Date.now();
    await server.db
      .insertInto('payments')
      .values(
        PAYMENTS.map(([daysAgo, status, currency, value, symbol, network, buyer], index) => {
          // Today's payments an hour ago at most, so that they are not in the future; others at midday.
          const createdAt = new Date(daysAgo === 0 ? now - 60_000 : Date.parse(dayBefore(daysAgo)) + DAY_MS / 2);
          return {
            id: `pay_overview_${index}_${now}`,
            partner_id: partner.partnerId,
            merchant_id: merchantId,
            reference_id: `overview-${index}`,
            fiat_currency: currency,
            fiat_value: value,
            expires_at: new Date(status === 'requires_action' ? now + 3_600_000 : createdAt.getTime() + 600_000),
            status,
            token_symbol: symbol,
            token_asset: network === ETHEREUM ? ETHEREUM_USDC : symbol ? BASE_USDC : null,
            token_value: symbol ? `${value}0000` : null,
            network,
            buyer_account: buyer,
            created_at: createdAt,
          };
        }),
      )
      .execute();
    // A refund recorded of yesterday's payment, so the range's refunded total is not empty.
    const refunded = await call(server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      body: { paymentId: `pay_overview_2_${now}`, amount: { unit: 'iso4217/USD', value: '1000' } },
    });
    expect(refunded.status, refunded.text).toBe(200);

    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    page = await signedInDashboard(server, context, partner.partnerId);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lands on the overview of the last 30 days: the figures and counts are the API’s, the chart adds up to them', async () => {
    expect(new URL(page.url()).pathname).toBe('/dashboard/overview');
    expect(await page.locator('nav[aria-label="Sections"] a[aria-current="page"]').textContent()).toBe('Overview');
    expect(await page.locator('.segments a[aria-current="true"]').textContent()).toBe('Last 30 days');
    const { stats, charted } = await expectFiguresOfRange(dayBefore(29), today());
    // The range holds three currencies and more than one payment per status; the 40-day-old payment is out of it.
    expect(stats.totalRevenue.map((total) => total.currency)).toEqual(['JPY', 'KWD', 'USD']);
    expect(charted.find((chart) => chart.currency === 'USD')!.series).toEqual(['123456792767']);
    expect(stats.totalRefunded).toEqual([{ amount: 10, currency: 'USD' }]);
    expect(await page.locator('[data-currency="USD"] figcaption').textContent()).toContain('$1,234,567,927.67');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'overview');
  });

  it('splits the revenue by token and by network, the choice kept in the address; the parts still add up', async () => {
    await page.getByRole('radio', { name: 'By token' }).check();
    await page.waitForURL((url) => url.searchParams.get('split') === 'token');
    const usd = page.locator('[data-currency="USD"]');
    await expect.poll(() => usd.locator('.series-label').allTextContents()).toEqual(['USDC', 'USDT']);
    expect(
      await usd.locator('.series-total').evaluateAll((all) => all.map((data) => (data as HTMLDataElement).value)),
    ).toEqual(['123456792762', '5']);
    await expectFiguresOfRange(dayBefore(29), today());
    await usd.getByText('Revenue per day as a table').click();
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'overview-by-token');

    await page.getByRole('radio', { name: 'By network' }).check();
    await page.waitForURL((url) => url.searchParams.get('split') === 'network');
    await expect.poll(() => usd.locator('.series-label').allTextContents()).toEqual(['Base', 'Ethereum']);
    await expectFiguresOfRange(dayBefore(29), today());
    await page.reload();
    expect(await page.getByRole('radio', { name: 'By network' }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'Total' }).check();
    await page.waitForURL((url) => !url.searchParams.has('split'));
  });

  it('shows the last 7 days and a custom range, each in its address, with the API’s figures for it', async () => {
    await page.getByRole('link', { name: 'Last 7 days' }).click();
    await page.waitForURL((url) => url.searchParams.get('range') === '7d');
    const week = await expectFiguresOfRange(dayBefore(6), today());
    expect(week.stats.totalRevenue.map((total) => total.currency)).toEqual(['JPY', 'USD']);

    await page.getByRole('link', { name: 'Custom' }).click();
    await page.waitForURL((url) => url.searchParams.get('range') === 'custom');
    await page.getByLabel('From (UTC day)').fill(dayBefore(12));
    await page.getByLabel('To (UTC day, included)').fill(dayBefore(9));
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL((url) => url.searchParams.get('from') === dayBefore(12));
    expect(new URL(page.url()).searchParams.get('to')).toBe(dayBefore(9));
    const custom = await expectFiguresOfRange(dayBefore(12), dayBefore(9));
    expect(custom.stats.totalRevenue.map((total) => total.currency)).toEqual(['KWD', 'USD']);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'overview-custom');

    // A range that ends before it starts is told in words, and nothing is asked of the API.
    await page.goto(`${server.url}/dashboard/overview?range=custom&from=${today()}&to=${dayBefore(3)}`);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The first day is after the last day.');
    expect(await page.locator('.figures').count()).toBe(0);
  });

  it('keeps to its own scripts: no policy violation or script error', () => {
    expect(consoleProblems).toEqual([]);
  });
});
