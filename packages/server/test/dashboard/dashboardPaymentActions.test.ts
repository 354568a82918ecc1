import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import { BASE_ACCOUNT, BASE_USDC, createMerchant, createPayment, transitionsOf } from '../support/fixtures.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { saveDashboardScreenshots } from './support/dashboardBrowser.ts';
import { consoleContext, expectAccessible, LISTED_NETWORKS, signedInDashboard } from './support/dashboardSession.ts';

describe('dashboard payment actions in Chromium: cancel an unpaid payment, refund a succeeded one', () => {
  let server: TestServer;
  let partner: TestPartner;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** What the payment's last action said (the timeline below says its own). */
  const actionStatus = () => page.locator('section[aria-labelledby="actions-heading"]').getByRole('status');
  let merchantId: string;
  const consoleProblems: string[] = [];

  const transition = transitionsOf(() => server);

  /** The payment as the API gives it to the partner's key. */
  async function apiPayment(paymentId: string) {
    const result = await call(server, `/v1/payments/${paymentId}`, {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
    });
    expect(result.status).toBe(200);
    return result.body;
  }

  /** The payment's status and the marks of its refunds beside it, as the page shows them. */
  const statusBadges = () => page.locator('.payment-status .status').allTextContents();
  /** The value of a fact of the payment's page (`Refunded`), or null when the page does not show it. */
  const fact = async (term: string) => {
    const found = page.locator('.fact', { has: page.locator(`dt:text-is("${term}")`) });
    return (await found.count()) ? found.locator('dd').textContent() : null;
  };
  /** The statuses of the payment's refunds, oldest first, as their badges say them. */
  const refundStatuses = () =>
    page.locator('section[aria-labelledby="refunds-heading"] td[data-label="Status"]').allTextContents();
  /** What the payment list shows in a payment's Status cell. */
  async function listedStatus(paymentId: string) {
    await page.goto(`${server.url}/dashboard/payments?merchantId=${merchantId}`);
    const cell = page.locator(`tr[data-payment-id="${paymentId}"] .status`);
    await cell.first().waitFor();
    return cell.allTextContents();
  }

  async function openPayment(paymentId: string, referenceId: string) {
    await page.goto(`${server.url}/dashboard/payments/${paymentId}?merchantId=${merchantId}`);
    await page.getByRole('heading', { name: `Payment ${referenceId}`, level: 1 }).waitFor();
    // The header names the partner the session acts for, its id on hover.
    expect(await page.locator('header .partner').textContent()).toBe('Partner Actions partner');
    expect(await page.locator('header .partner [title]').getAttribute('title')).toBe(partner.partnerId);
  }

  /** A succeeded payment of USD 12,345.67 paid in USDC on Base by BASE_ACCOUNT (written as the chain follower would). */
  async function succeededPayment(referenceId: string) {
    const payment = await createPayment(server, partner.apiKey, merchantId, {
      referenceId,
      amount: { unit: 'iso4217/USD', value: '1234567' },
    });
    const paid = {
      network: 'eip155:8453',
      token_asset: BASE_USDC,
      token_symbol: 'USDC',
      token_value: '12345670000',
      tx_hash: `0x${randomBytes(32).toString('hex')}`,
      buyer_account: BASE_ACCOUNT,
    };
    await changePaymentStatus(transition, payment.paymentId, 'processing', paid);
    await changePaymentStatus(transition, payment.paymentId, 'succeeded');
    return payment.paymentId;
  }

  beforeAll(async () => {
    server = await startTestServer({ context: { chains: new ChainRegistry(LISTED_NETWORKS) } });
    partner = await newPartner(server.db, 'Actions partner');
    merchantId = (
      await createMerchant(server, partner.apiKey, { merchantName: 'Action Shop', merchantEmail: 'a@action.example' })
    ).id;
    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await signedInDashboard(server, context, partner.partnerId);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('cancels an unpaid payment after a confirmation; keeping it changes nothing', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId, { referenceId: 'to-cancel-1' });
    await openPayment(paymentId, 'to-cancel-1');
    await page.getByRole('button', { name: 'Cancel payment…' }).click();
    const question = page.getByRole('group', { name: /^Cancel payment to-cancel-1\?/ });
    await question.waitFor();
    // The question takes the focus, so a screen reader reads it.
    expect(await question.evaluate((element) => element === document.activeElement)).toBe(true);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'payment-cancel-confirm');

    await page.getByRole('button', { name: 'Keep the payment' }).click();
    expect((await apiPayment(paymentId)).status).toBe('requires_action');

    await page.getByRole('button', { name: 'Cancel payment…' }).click();
    await page.getByRole('button', { name: 'Yes, cancel the payment' }).click();
    await expect
      .poll(() => actionStatus().textContent())
      .toBe('The payment is cancelled; the buyer can no longer pay it.');
    const cancelled = await apiPayment(paymentId);
    expect(cancelled.status).toBe('cancelled');
    await expect.poll(() => page.locator('.payment-status').textContent()).toContain('Cancelled');
    expect(await page.getByRole('button', { name: 'Cancel payment…' }).count()).toBe(0);
    await saveDashboardScreenshots(page, 'payment-cancelled');
  });

  it("says in words why a cancel is refused: the API's own message", async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId, { referenceId: 'being-paid-1' });
    await openPayment(paymentId, 'being-paid-1');
    // The buyer's wallet confirmed meanwhile: the payment is being paid, still awaiting the chain.
    const option = {
      id: `opt_${paymentId}`,
      payment_id: paymentId,
      account: BASE_ACCOUNT,
      asset: BASE_USDC,
      network: 'eip155:8453',
      method: 'eip3009',
      amount: '10000000',
      actions: '[]',
      terms: '{}',
    };
    await server.db.insertInto('payment_options').values(option).execute();
    await server.db
      .insertInto('payment_confirmations')
      .values({ payment_id: paymentId, option_id: option.id, results: '[]', terms: '{}' })
      .execute();
    await page.getByRole('button', { name: 'Cancel payment…' }).click();
    await page.getByRole('button', { name: 'Yes, cancel the payment' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Not cancelled: The payment is being paid and can no longer be cancelled.');
    expect((await apiPayment(paymentId)).status).toBe('requires_action');
    await expectAccessible(page);
  });

  it('refunds a succeeded payment in part (recorded), says why too much is refused, then sends the rest back on chain', async () => {
    const paymentId = await succeededPayment('to-refund-1');
    await openPayment(paymentId, 'to-refund-1');
    await page.getByRole('button', { name: 'Refund…' }).click();
    const amount = page.getByLabel('Amount in USD');

    // Not an amount of dollars and cents: told before anything is sent.
    await amount.fill('12.345');
    await page.getByRole('button', { name: 'Review the refund' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Write an amount above zero in USD, like 12.50.');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'payment-refund-form');

    await amount.fill('20000');
    await page.getByRole('button', { name: 'Review the refund' }).click();
    await page.getByRole('group', { name: /^Refund \$20,000\.00 of payment to-refund-1, recorded/ }).waitFor();
    await page.getByRole('button', { name: 'Yes, refund' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Not refunded: At most $12,345.67 can still be refunded.');
    await saveDashboardScreenshots(page, 'payment-refund-refused');

    await page.getByRole('button', { name: 'Change the refund' }).click();
    await amount.fill('12.34');
    await page.getByRole('button', { name: 'Review the refund' }).click();
    await page.getByRole('button', { name: 'Yes, refund' }).click();
    await expect.poll(() => actionStatus().textContent()).toBe('Refund of $12.34 recorded.');
    const recorded = await apiPayment(paymentId);
    expect(recorded.refunds.map((refund: any) => [refund.method, refund.status, refund.amount.value])).toEqual([
      ['recorded', 'succeeded', '1234'],
    ]);
    expect(recorded.refundedAmount).toEqual({ unit: 'iso4217/USD', value: '1234' });
    await expect.poll(() => page.locator('#refunds-heading').count()).toBe(1);
    expect(await page.locator('main').textContent()).toContain('$12.34');
    // Partly refunded: said beside its status, the refund's own status a badge like the payment's.
    await expect.poll(statusBadges).toEqual(['Succeeded', 'Partially refunded']);
    expect(await fact('Refunded')).toBe('$12.34');
    expect(await fact('Refund pending')).toBeNull();
    expect(await refundStatuses()).toEqual(['Succeeded']);
    await saveDashboardScreenshots(page, 'payment-partly-refunded');

    // The rest, sent back to the paying account: the amount left empty.
    await page.getByRole('button', { name: 'Refund…' }).click();
    await page.getByRole('radio', { name: "Send the paid token back to the buyer's account" }).check();
    await page.getByRole('button', { name: 'Review the refund' }).click();
    await page
      .getByRole('group', {
        name: `Refund everything not refunded yet of payment to-refund-1, sent back on chain to ${BASE_ACCOUNT}? This cannot be undone.`,
      })
      .waitFor();
    await page.getByRole('button', { name: 'Yes, refund' }).click();
    await expect.poll(() => actionStatus().textContent()).toContain('sent back on chain');
    const sent = await apiPayment(paymentId);
    expect(sent.refunds.map((refund: any) => [refund.method, refund.amount.value, refund.destination ?? null])).toEqual(
      [
        ['recorded', '1234', null],
        ['onchain', '1233333', BASE_ACCOUNT],
      ],
    );
    await expect.poll(() => page.locator('main').textContent()).toContain('Sent back on chain');
    // The rest is on its way back, not refunded yet.
    await expect.poll(statusBadges).toEqual(['Succeeded', 'Partially refunded', 'Refund pending']);
    expect(await fact('Refunded')).toBe('$12.34');
    expect(await fact('Refund pending')).toBe('$12,333.33 on its way back to the buyer');
    expect(await refundStatuses()).toEqual(['Succeeded', 'Pending']);
    // Nothing is left to refund: the page no longer offers it.
    expect(await page.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
    expect(await page.locator('section[aria-labelledby="refunds-heading"] .status').allTextContents()).toEqual([
      'Succeeded',
      'Pending',
    ]);

    // Ids copy whole to the clipboard, and the button says so.
    const pendingRefundId = sent.refunds[1].id as string;
    const pendingRow = page.locator(`tr[data-refund-id="${pendingRefundId}"]`);
    await pendingRow.getByRole('button', { name: 'Copy refund id' }).click();
    await expect.poll(() => pendingRow.locator('.copy-feedback').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(pendingRefundId);
    await page.getByRole('button', { name: 'Copy payment id' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(paymentId);
    await page.getByRole('button', { name: 'Copy merchant id' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(merchantId);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'payment-refunded');

    expect(await listedStatus(paymentId)).toEqual(['Succeeded', 'Partially refunded', 'Refund pending']);
  });

  it('shows a refund still on its way as pending, never as $0.00 refunded; a whole refund as Refunded', async () => {
    const sending = await succeededPayment('refund-on-its-way-1');
    const asked = await call(server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      body: { paymentId: sending, send: true },
    });
    expect([asked.status, asked.body.status]).toEqual([200, 'pending']);
    await openPayment(sending, 'refund-on-its-way-1');
    expect(await statusBadges()).toEqual(['Succeeded', 'Refund pending']);
    expect(await fact('Refunded')).toBeNull();
    expect(await fact('Refund pending')).toBe('$12,345.67 on its way back to the buyer');
    expect(await page.locator('main').textContent()).not.toContain('$0.00');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'payment-refund-pending');
    expect(await listedStatus(sending)).toEqual(['Succeeded', 'Refund pending']);

    const whole = await succeededPayment('refunded-whole-1');
    const recorded = await call(server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      body: { paymentId: whole },
    });
    expect(recorded.status, recorded.text).toBe(200);
    expect(await listedStatus(whole)).toEqual(['Succeeded', 'Refunded']);
    await saveDashboardScreenshots(page, 'payments-refunds');
    await openPayment(whole, 'refunded-whole-1');
    expect(await statusBadges()).toEqual(['Succeeded', 'Refunded']);
    expect(await fact('Refunded')).toBe('$12,345.67');
    expect(await page.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
  });

  it('keeps to its own scripts: no policy violation or script error', () => {
    expect(consoleProblems).toEqual([]);
  });
});
