import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setFeeSchedule } from '../../src/settlement/feeSchedules.ts';
import type { SettlementWorker } from '../../src/settlement/worker.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import {
  addDestination,
  newEvmDestination,
  payInUsdc,
  settleRound,
  settlementWorker,
  usdcAssets,
} from '../settlement/support.ts';
import { createMerchant } from '../support/fixtures.ts';
import { call } from '../support/testServer.ts';
import { saveDashboardScreenshots } from './support/dashboardBrowser.ts';
import { consoleContext, expectAccessible, signedInDashboard } from './support/dashboardSession.ts';

/** USDC minor units (6 decimals) as a person reads them: every digit the amount has, trailing zeros dropped. */
function usdc(minor: string): string {
  const digits = minor.padStart(7, '0');
  const fraction = digits.slice(-6).replace(/0+$/, '');
  return `${digits.slice(0, -6)}${fraction ? `.${fraction}` : ''} USDC`;
}

interface ApiBatch {
  id: string;
  amount: string;
  fees: string;
  paymentCount: number;
  txHash: string;
}

describe('dashboard settlements in Chromium: batches, a batch with its payments, and the fees report', () => {
  let testbed: GatewayTestbed;
  let worker: SettlementWorker;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const merchants = { harbour: '', quay: '' };
  const consoleProblems: string[] = [];
  const problems: string[] = [];

  const api = async (path: string) => {
    const result = await call(testbed.server, path, { headers: { 'api-key': testbed.partner.apiKey } });
    expect(result.status, result.text).toBe(200);
    return result.body;
  };
  const shownBatchIds = () =>
    page.locator('tr[data-batch-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-batch-id')));
  const cell = (row: string, label: string) => page.locator(`${row} [data-label="${label}"]`).textContent();

  async function settledMerchant(name: string, amounts: bigint[]): Promise<string> {
    const merchantId = (
      await createMerchant(testbed.server, testbed.partner.apiKey, {
        merchantName: name,
        merchantEmail: 'owner@shop.example',
      })
    ).id;
    await addDestination(testbed, merchantId, usdcAssets(testbed).evm.caip19, newEvmDestination(testbed));
    for (const amount of amounts) await payInUsdc(testbed, merchantId, 'evm', amount);
    expect((await settleRound(testbed, worker)).created).toHaveLength(1);
    return merchantId;
  }

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
    await setFeeSchedule(testbed.server.db, testbed.partner.partnerId, {
      percentage: '1.5',
      fixed: [{ currency: 'USD', amount: 30n }],
    });
    worker = settlementWorker(testbed, problems);
    merchants.harbour = await settledMerchant('Harbour Café', [1000n, 2345n]);
    merchants.quay = await settledMerchant('Quay Books', [777n]);
    expect(problems).toEqual([]);
    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    page = await signedInDashboard(testbed.server, context, testbed.partner.partnerId);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await testbed?.close();
  });

  it("lists the batches with the API's figures and the fees report as GET /v1/fees gives it", async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Settlements' }).click();
    await page.getByRole('heading', { name: 'Settlements', level: 1 }).waitFor();
    const listed = (await api('/v1/settlements')).data as ApiBatch[];
    expect(listed).toHaveLength(2);
    await expect.poll(shownBatchIds).toEqual(listed.map((batch) => batch.id));
    for (const batch of listed) {
      const row = `tr[data-batch-id="${batch.id}"]`;
      expect(await cell(row, 'Amount')).toBe(usdc(batch.amount));
      expect(await cell(row, 'Fees')).toBe(usdc(batch.fees));
      expect(await cell(row, 'Payments')).toBe(String(batch.paymentCount));
      expect(await cell(row, 'Status')).toBe('Confirmed');
      // The devnet has no explorer: the hash is shown, shortened, the whole of it in its title.
      expect(await page.locator(`${row} [data-label="Transaction"] code`).getAttribute('title')).toBe(batch.txHash);
    }
    await expect.poll(() => cell(`tr[data-batch-id="${listed[1]!.id}"]`, 'Merchant')).toBe('Harbour Café');

    const fees = await api('/v1/fees');
    expect(fees.fees).toHaveLength(1);
    const [line] = fees.fees;
    const feeRow = `tr[data-asset="${line.asset}"]`;
    await page.locator(feeRow).waitFor();
    expect([
      await cell(feeRow, 'Payments'),
      await cell(feeRow, 'Fees charged'),
      await cell(feeRow, 'Settled'),
      await cell(feeRow, 'Unsettled'),
    ]).toEqual([String(line.payments), usdc(line.total), usdc(line.settled), usdc(line.unsettled)]);
    expect(line.total).toBe(listed.reduce((sum, batch) => sum + BigInt(batch.fees), 0n).toString());
    expect(await page.getByText('Fee schedule:').textContent()).toContain('1.5% + $0.30');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'settlements');
  });

  it('filters by merchant and status, and pages with Next and Previous', async () => {
    await page.getByLabel('Merchant').selectOption({ label: 'Harbour Café' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const ofHarbour = (await api(`/v1/settlements?merchantId=${merchants.harbour}`)).data as ApiBatch[];
    await expect.poll(shownBatchIds).toEqual(ofHarbour.map((batch) => batch.id));
    expect(new URL(page.url()).searchParams.get('merchantId')).toBe(merchants.harbour);
    await page.getByRole('heading', { name: 'Fees of Harbour Café' }).waitFor();
    const harbourFees = (await api(`/v1/fees?merchantId=${merchants.harbour}`)).fees[0];
    await expect
      .poll(() => cell(`tr[data-asset="${harbourFees.asset}"]`, 'Fees charged'))
      .toBe(usdc(harbourFees.total));

    await page.getByLabel('Status').selectOption({ label: 'Failed' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No settlements match these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(shownBatchIds).toHaveLength(2);

    const [newest, older] = (await api('/v1/settlements')).data as ApiBatch[];
    await page.goto(`${testbed.server.url}/dashboard/settlements?limit=1`);
    await expect.poll(shownBatchIds).toEqual([newest!.id]);
    const pages = page.getByRole('navigation', { name: 'Pages of settlements' });
    await pages.getByRole('button', { name: 'Next' }).click();
    await expect.poll(shownBatchIds).toEqual([older!.id]);
    expect(await pages.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pages.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(shownBatchIds).toEqual([newest!.id]);
  });

  it('shows a batch with its payments, each linked to its page', async () => {
    const [batch] = (await api(`/v1/settlements?merchantId=${merchants.harbour}`)).data as ApiBatch[];
    const detail = await api(`/v1/settlements/${batch!.id}`);
    await page.goto(`${testbed.server.url}/dashboard/settlements`);
    await page.locator(`tr[data-batch-id="${batch!.id}"] [data-label="Made"] a`).click();
    await page.getByRole('heading', { name: 'Settlement batch', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Harbour Café' }).waitFor();
    const facts = await page.locator('.facts').textContent();
    expect(facts).toContain(usdc(detail.amount));
    expect(facts).toContain(detail.txHash);
    expect(facts).toContain(detail.destination);
    const shownPayments = await page
      .locator('tr[data-payment-id]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-payment-id')));
    expect(shownPayments).toEqual(detail.payments.map((payment: { paymentId: string }) => payment.paymentId));
    for (const payment of detail.payments) {
      const row = `tr[data-payment-id="${payment.paymentId}"]`;
      expect([await cell(row, 'Paid'), await cell(row, 'Fees'), await cell(row, 'Net')]).toEqual([
        usdc(payment.paid),
        usdc(payment.fees),
        usdc(payment.net),
      ]);
    }
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'settlement-batch');

    const [first] = detail.payments;
    await page.getByRole('link', { name: first.referenceId }).click();
    await page.getByRole('heading', { name: `Payment ${first.referenceId}`, level: 1 }).waitFor();
    expect(await page.locator('.facts').first().textContent()).toContain(usdc(first.net));
  });

  it('says so for an address that names no batch of the partner', async () => {
    await page.goto(`${testbed.server.url}/dashboard/settlements/stb_nope`);
    await page.getByRole('heading', { name: 'Settlement not found', level: 1 }).waitFor();
    expect(consoleProblems).toEqual([]);
  });
});
