import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCheckoutAppId } from '../../src/checkout/checkoutApp.ts';
import { createSignInLink } from '../../src/dashboard/sessions.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import { saveDashboardScreenshots } from '../dashboard/support/dashboardBrowser.ts';
import { consoleContext, expectAccessible } from '../dashboard/support/dashboardSession.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('operator console in Chromium: signed in by a one-time link, it manages partners and merchants', () => {
  let server: TestServer;
  let partner: TestPartner;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let operatorCookie: string;
  let merchants: { id: string; name: string }[];
  const consoleProblems: string[] = [];

  /** The console API's answer to the operator's session, as the page's own requests get it. */
  async function asOperator(path: string) {
    const result = await call(server, path, { headers: { cookie: operatorCookie } });
    expect(result.status).toBe(200);
    return result.body;
  }

  const createPaymentFor = (apiKey: string, merchantId: string) =>
    call(server, '/v1/payments', {
      method: 'POST',
      headers: { 'api-key': apiKey, 'merchant-id': merchantId, 'idempotency-key': randomUUID() },
      body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `order-${randomUUID()}` },
    });

  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_CACHE_TTL_MS: '0' } });
    partner = await newPartner(server.db, 'Existing partner');
    merchants = [];
    for (const name of ['Alpha Shop', 'Beta Shop', 'Gamma Shop']) {
      const slug = name.toLowerCase().replace(' ', '-');
      const created = await createMerchant(server, partner.apiKey, {
        merchantName: name,
        merchantEmail: `owner@${slug}.com`,
      });
      merchants.push({ id: created.id, name });
    }
    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('explains the one-time link without a session, and says a spent link is spent', async () => {
    await page.goto(`${server.url}/operator`);
    await page.getByRole('heading', { name: 'Sign in to the operator console', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/operator/sign-in');
    expect(await page.locator('main').textContent()).toContain('paygate operator-link');
    expect(await page.locator('.notice').count()).toBe(0);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-sign-in');

    const link = await createSignInLink(server.db, null, 60_000, new Date());
    const spender = await browser.newContext();
    await (await spender.newPage()).goto(`${server.url}/operator/link/${link.token}`);
    await spender.close();
    await page.goto(`${server.url}/operator/link/${link.token}`);
    await page.getByRole('heading', { name: 'Sign in to the operator console' }).waitFor();
    expect(new URL(page.url()).search).toBe('?link=spent');
    expect(await page.getByRole('status').textContent()).toBe(
      'This sign-in link has been used or has expired; run paygate operator-link for a new one.',
    );
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-sign-in-link-spent');
  });

  it("signs in by a link and lists the partners as the API does, the service's own checkout partner left out", async () => {
    // A checkout page shown once makes the service's own partner, which owns the page's wallet app.
    const checkoutAppId = await ensureCheckoutAppId(server.db);
    const { partner_id: servicePartnerId } = await server.db
      .selectFrom('apps')
      .select('partner_id')
      .where('id', '=', checkoutAppId)
      .executeTakeFirstOrThrow();
    const link = await createSignInLink(server.db, null, 60_000, new Date());
    await page.goto(`${server.url}/operator/link/${link.token}`);
    await page.getByRole('heading', { name: 'Partners', level: 1 }).waitFor();
    // The link answers `/operator`, which shows the partners under their own address.
    await page.waitForURL((url) => url.pathname === '/operator/partners');
    const cookie = (await context.cookies()).find((each) => each.name === 'paygate_operator')!;
    expect(cookie).toMatchObject({ path: '/operator', httpOnly: true, sameSite: 'Strict' });
    operatorCookie = `paygate_operator=${cookie.value}`;

    const listed = (await asOperator('/operator/api/partners')).data as { partnerId: string }[];
    await expect
      .poll(() =>
        page
          .locator('tr[data-partner-id]')
          .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-partner-id'))),
      )
      .toEqual(listed.map((each) => each.partnerId));
    const row = page.locator(`tr[data-partner-id="${partner.partnerId}"]`);
    expect(await row.locator('td[data-label="Merchants"]').textContent()).toContain('3');
    expect(await row.locator('td[data-label="Fees"]').textContent()).toBe('None');
    expect(listed.map((each) => each.partnerId)).not.toContain(servicePartnerId);
    expect(await page.locator('main').textContent()).not.toContain('paygate checkout (service)');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-partners');

    // Nor is it shown, to be edited, by its own address.
    await page.goto(`${server.url}/operator/partners/${servicePartnerId}`);
    await page.getByRole('heading', { name: 'Partner not found', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: 'Save fees' }).count()).toBe(0);
    await page.goto(`${server.url}/operator/partners`);
    await page.getByRole('heading', { name: 'Partners', level: 1 }).waitFor();
  });

  it('creates a partner: its API key is shown once with a copy button and a warning, and works at once', async () => {
    await page.getByLabel('Name').fill('Console Partner');
    await page.getByRole('button', { name: 'Create partner' }).click();
    await page.getByRole('heading', { name: 'Partner Console Partner created' }).waitFor();
    const apiKey = await page.getByLabel('API key').inputValue();
    const warning = await page
      .getByLabel('API key')
      .evaluate((field) => document.getElementById(field.getAttribute('aria-describedby')!)?.textContent);
    expect(warning).toContain('It is shown only this once');
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    expect((await call(server, '/v1/merchants', { headers: { 'api-key': apiKey } })).status).toBe(200);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-partner-created');

    await page.getByRole('button', { name: 'Done, it is kept' }).click();
    expect(await page.getByLabel('API key').count()).toBe(0);
    const created = ((await asOperator('/operator/api/partners')).data as { partnerId: string; name: string }[]).find(
      (each) => each.name === 'Console Partner',
    )!;
    await page.locator(`tr[data-partner-id="${created.partnerId}"]`).waitFor();
  });

  it("edits a partner's fees (exact minor units, a refusal said in words) and pins its version", async () => {
    await page.getByRole('link', { name: 'Existing partner', exact: true }).click();
    await page.getByRole('heading', { name: 'Existing partner', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/operator/partners/${partner.partnerId}`);
    const percentage = page.getByLabel('Percentage');

    await percentage.fill('lots');
    await page.getByRole('button', { name: 'Save fees' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^Not saved: .+/);
    const fees = async () =>
      ((await asOperator('/operator/api/partners')).data as { partnerId: string; fees: unknown }[]).find(
        (each) => each.partnerId === partner.partnerId,
      )!.fees;
    expect(await fees()).toEqual({ percentage: '0', fixed: [] });

    await percentage.fill('1.5');
    await page.getByRole('button', { name: 'Add a fixed fee' }).click();
    await page.getByLabel('Currency 1').fill('usd');
    await page.getByLabel('Amount 1').fill('0.30');
    await page.getByRole('button', { name: 'Add a fixed fee' }).click();
    await page.getByLabel('Currency 2').fill('JPY');
    await page.getByLabel('Amount 2').fill('45');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-partner-fees');
    await page.getByRole('button', { name: 'Save fees' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe('Fees saved: 1.5% + $0.30 + ¥45. They apply to payments that succeed from now on.');
    expect(await fees()).toEqual({
      percentage: '1.5',
      fixed: [
        { currency: 'JPY', amount: '45' },
        { currency: 'USD', amount: '30' },
      ],
    });
    await expect
      .poll(() => page.locator('.fact', { hasText: 'Fees' }).first().locator('dd').textContent())
      .toBe('1.5% + ¥45 + $0.30');

    await page.getByLabel('Version', { exact: true }).selectOption('2026-02-19.preview');
    await page.getByRole('button', { name: 'Pin version' }).click();
    await expect.poll(() => page.getByText('Pinned to 2026-02-19.preview.').count()).toBe(1);
    const answered = await call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey } });
    expect(answered.headers.get('pay-version')).toBe('2026-02-19.preview');
    await saveDashboardScreenshots(page, 'operator-partner');
  });

  it("sets a partner's buyer-data threshold as the CLI takes it: a refusal said in words, the stored one shown", async () => {
    await page.goto(`${server.url}/operator/partners/${partner.partnerId}`);
    await page.getByRole('heading', { name: 'Existing partner', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'Buyer data' });
    const shown = () => page.locator('.fact', { hasText: 'Buyer data' }).locator('dd').textContent();
    const stored = () =>
      server.db
        .selectFrom('partners')
        .select(['data_threshold_currency', 'data_threshold_amount'])
        .where('id', '=', partner.partnerId)
        .executeTakeFirstOrThrow();
    expect(await shown()).toBe('Never asked');
    expect(await form.getByLabel('Threshold').inputValue()).toBe('none');

    await form.getByLabel('Threshold').fill('EUR:12.50');
    await form.getByRole('button', { name: 'Save threshold' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/^Not saved: .*threshold a threshold is/);
    expect(await stored()).toEqual({ data_threshold_currency: null, data_threshold_amount: null });

    await form.getByLabel('Threshold').fill(' EUR:5000 ');
    await form.getByRole('button', { name: 'Save threshold' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Buyer data threshold saved: Above €50.00.');
    expect(await stored()).toEqual({ data_threshold_currency: 'EUR', data_threshold_amount: '5000' });
    const listed = (
      (await asOperator('/operator/api/partners')).data as { partnerId: string; dataThreshold: string }[]
    ).find((each) => each.partnerId === partner.partnerId)!;
    expect(listed.dataThreshold).toBe('EUR:5000');
    await expect.poll(shown).toBe('Above €50.00');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-partner-data-threshold');

    await page.goto(`${server.url}/operator/partners`);
    await expect
      .poll(() => page.locator(`tr[data-partner-id="${partner.partnerId}"] td[data-label="Buyer data"]`).textContent())
      .toBe('Above €50.00');
  });

  it('lists the merchants of a partner a page at a time, suspends one after a confirmation: its payments are refused 403', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Merchants' }).click();
    await page.getByRole('heading', { name: 'Merchants', level: 1 }).waitFor();
    await page.getByLabel('Partner').selectOption({ label: 'Existing partner' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('partnerId') === partner.partnerId);
    const shownIds = () =>
      page
        .locator('tr[data-merchant-id]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-merchant-id')));
    await expect.poll(shownIds).toEqual(merchants.map((merchant) => merchant.id));
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-merchants');

    // A page of one, by the address: Next and Previous follow the API's cursors.
    await page.goto(`${server.url}/operator/merchants?partnerId=${partner.partnerId}&limit=1`);
    await expect.poll(shownIds).toEqual([merchants[0]!.id]);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(shownIds).toEqual([merchants[1]!.id]);
    expect(await page.locator('.pager').textContent()).toContain('Page 2');
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(shownIds).toEqual([merchants[0]!.id]);

    await page.goto(`${server.url}/operator/merchants?partnerId=${partner.partnerId}`);
    const beta = merchants[1]!;
    await page.getByRole('button', { name: `Suspend ${beta.name}` }).click();
    const question = page.getByRole('group', { name: /^Suspend Beta Shop\?/ });
    await question.waitFor();
    expect(await question.textContent()).toContain('Existing partner can take no new payments for it');
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-merchant-suspend');
    await page.getByRole('button', { name: 'Keep it as it is' }).click();
    expect((await createPaymentFor(partner.apiKey, beta.id)).status).toBe(201);

    await page.getByRole('button', { name: `Suspend ${beta.name}` }).click();
    await page.getByRole('button', { name: 'Yes, suspend' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Beta Shop is suspended.');
    await expect
      .poll(() => page.locator(`tr[data-merchant-id="${beta.id}"] td[data-label="Status"]`).textContent())
      .toBe('Suspended');
    const refused = await createPaymentFor(partner.apiKey, beta.id);
    expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'forbidden']);

    // Only the suspended one, by the status filter.
    await page.getByLabel('Status').selectOption('suspended');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(shownIds).toEqual([beta.id]);

    await page.getByRole('button', { name: `Reactivate ${beta.name}` }).click();
    await page.getByRole('button', { name: 'Yes, reactivate' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Beta Shop is active again.');
    expect((await createPaymentFor(partner.apiKey, beta.id)).status).toBe(201);
  });

  it('answers an unknown page with Page not found', async () => {
    await page.goto(`${server.url}/operator/nothing-here`);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-not-found');
  });

  it('signs out: back to the sign-in page, and the old cookie then gets 401', async () => {
    await page.goto(`${server.url}/operator/partners`);
    await page.getByRole('heading', { name: 'Partners', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the operator console' }).waitFor();
    expect((await context.cookies()).some((each) => each.name === 'paygate_operator')).toBe(false);
    const after = await call(server, '/operator/api/partners', { headers: { cookie: operatorCookie } });
    expect([after.status, expectErrorBody(after).code]).toEqual([401, 'invalid_session']);
  });

  it('keeps to its own scripts: no policy violation or script error on any page', () => {
    expect(consoleProblems).toEqual([]);
  });
});
