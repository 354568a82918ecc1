import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { payInUsdc, usdcBalance } from '../settlement/support.ts';
import { call } from '../support/testServer.ts';
import { warningsInto } from '../support/warnings.ts';
import { saveDashboardScreenshots } from './support/dashboardBrowser.ts';
import { consoleContext, expectAccessible, signedInDashboard } from './support/dashboardSession.ts';

describe('dashboard refund sent on chain in Chromium, on the devnet: the buyer gets the token back', () => {
  let testbed: GatewayTestbed;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** What the payment's last action said (the timeline below says its own). */
  const actionStatus = () => page.locator('section[aria-labelledby="actions-heading"]').getByRole('status');
  const consoleProblems: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    page = await signedInDashboard(testbed.server, context, testbed.partner.partnerId);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await testbed?.close();
  });

  it('sends part of a paid payment back from its page; the page follows the refund until its transaction lands', async () => {
    const buyer = testbed.evmAccount('alice');
    // 12.34 USD paid in USDC by the buyer on the devnet, through the gateway and the chain follower.
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'evm', 1234n);
    const before = await usdcBalance(testbed, buyer);

    await page.goto(`${testbed.server.url}/dashboard/payments/${paymentId}?merchantId=${testbed.merchantId}`);
    await page.getByRole('heading', { name: /^Payment /, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Refund…' }).click();
    await page.getByLabel('Amount in USD').fill('5.00');
    await page.getByRole('radio', { name: "Send the paid token back to the buyer's account" }).check();
    await page.getByRole('button', { name: 'Review the refund' }).click();
    await page
      .getByRole('group', { name: new RegExp(`^Refund \\$5\\.00 of payment .*, sent back on chain to ${buyer}\\?`) })
      .waitFor();
    await page.getByRole('button', { name: 'Yes, refund' }).click();
    await expect.poll(() => actionStatus().textContent()).toContain('sent back on chain');
    const refunds = page.locator('section[aria-labelledby="refunds-heading"] tbody tr');
    const refundStatus = () => refunds.first().locator('td[data-label="Status"] .status').textContent();
    await expect.poll(refundStatus).toBe('Pending');
    expect(await page.locator('.payment-status .status').allTextContents()).toEqual(['Succeeded', 'Refund pending']);

    // The refund worker sends it; the page, left alone, shows it land with its transaction.
    const worker = new RefundWorker({
      db: testbed.server.db,
      chains: testbed.chains,
      services: testbed.services,
      clock: testbed.clock,
      log: warningsInto(problems),
    });
    await worker.runOnce();
    await expect.poll(refundStatus, { timeout: 30_000 }).toBe('Succeeded');
    expect(await page.locator('.payment-status .status').allTextContents()).toEqual([
      'Succeeded',
      'Partially refunded',
    ]);
    const read = await call(testbed.server, `/v1/payments/${paymentId}`, {
      headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': testbed.merchantId },
    });
    const [refund] = read.body.refunds;
    expect(refund).toMatchObject({ method: 'onchain', status: 'succeeded', amount: { value: '500' } });
    expect(refund.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    // Shortened in the row, whole in its title and on the clipboard.
    expect(await refunds.first().locator('td[data-label="Transaction"] code').getAttribute('title')).toBe(
      refund.txHash,
    );
    expect(await refunds.first().getByRole('button', { name: 'Copy transaction hash' }).getAttribute('data-copy')).toBe(
      refund.txHash,
    );
    expect(await refunds.first().getByRole('button', { name: 'Copy refund id' }).getAttribute('data-copy')).toBe(
      refund.id,
    );
    // 5.00 USD of USDC at the devnet's price of one: 5 USDC, to the unit.
    expect((await usdcBalance(testbed, buyer)) - before).toBe(5_000_000n);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'payment-refunded-onchain');
    expect(problems).toEqual([]);
    expect(consoleProblems).toEqual([]);
  });
});
