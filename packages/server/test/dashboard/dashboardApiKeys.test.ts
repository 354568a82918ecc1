import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/partners/partners.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';
import { saveDashboardScreenshots } from './support/dashboardBrowser.ts';
import { consoleContext, expectAccessible, signedInDashboard } from './support/dashboardSession.ts';

describe('dashboard developers in Chromium: API keys and the API version pin', () => {
  let server: TestServer;
  let partner: TestPartner;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleProblems: string[] = [];

  const asKey = (apiKey: string, path: string) => call(server, path, { headers: { 'api-key': apiKey } });
  const keyRow = (keyId: string) => page.locator(`tr[data-key-id="${keyId}"]`);

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db, 'Keys partner');
    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await signedInDashboard(server, context, partner.partnerId);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('creates a key with the scopes chosen, shown once and copied; it works with exactly those scopes', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Developers' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 2 }).waitFor();
    // The partner's first key is listed by its prefix only.
    await expect.poll(() => page.locator('tr[data-key-id]').count()).toBe(1);
    expect(await page.locator('main').textContent()).not.toContain(partner.apiKey);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'developers-keys');

    await page.getByText('Create an API key').click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Not created: Choose at least one scope.');
    await page.getByRole('checkbox', { name: /^payments/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'API key created' }).waitFor();
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'developers-key-created');
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Copied to the clipboard.');
    const apiKey = await page.evaluate(() => navigator.clipboard.readText());
    expect(apiKey).toBe(await page.getByLabel('API key', { exact: true }).inputValue());

    const listed = (await asKey(partner.apiKey, '/v1/api-keys')).body.data as { keyId: string; scopes: string[] }[];
    expect(listed).toHaveLength(2);
    expect(listed[0]!.scopes).toEqual(['payments']);
    expect((await asKey(apiKey, '/v1/payments')).status).toBe(200);
    const refused = await asKey(apiKey, '/v1/merchants');
    expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'forbidden']);

    await page.getByRole('button', { name: 'Done, it is kept' }).click();
    await expect.poll(() => keyRow(listed[0]!.keyId).textContent()).toContain('payments');
    // Once put away, the key is nowhere on the page.
    expect(await page.locator('main').textContent()).not.toContain(apiKey);
  });

  it('revokes a key after a confirmation; the key is refused from then on', async () => {
    const { keyId, apiKey } = await createApiKey(server.db, partner.partnerId, ['payments']);
    // A newer key above it in the list, which must outlive the revoke.
    const newer = await createApiKey(server.db, partner.partnerId, ['payments']);
    await page.reload();
    const row = keyRow(keyId);
    await row.getByRole('button', { name: /^Revoke / }).click();
    await row.getByRole('button', { name: 'Keep the key' }).click();
    expect((await asKey(apiKey, '/v1/payments')).status).toBe(200);

    await row.getByRole('button', { name: /^Revoke / }).click();
    await expectAccessible(page);
    await row.getByRole('button', { name: 'Yes, revoke the key' }).click();
    await expect.poll(() => row.textContent()).toMatch(/Revoked /);
    const answer = await asKey(apiKey, '/v1/payments');
    expect([answer.status, expectErrorBody(answer).code]).toEqual([401, 'invalid_api_key']);
    expect((await asKey(newer.apiKey, '/v1/payments')).status).toBe(200);
  });

  it('pins a newer API version after a confirmation; requests without a version run under it', async () => {
    await page.getByRole('heading', { name: 'API version', level: 2 }).waitFor();
    const section = page.locator('section[aria-labelledby="api-version-heading"]');
    expect(await section.textContent()).toContain('2026-02-18');
    // The versions' descriptions show their code as code, not as backticks.
    expect(await section.textContent()).not.toContain('`');
    expect(await section.locator('li code').allTextContents()).toContain('token_symbol');
    await saveDashboardScreenshots(page, 'developers-version');
    await page.getByLabel('Newer version').selectOption('2026-02-19.preview');
    await page.getByRole('button', { name: 'Pin this version…' }).click();
    await page.getByRole('button', { name: 'Keep 2026-02-18' }).click();
    expect((await asKey(partner.apiKey, '/v1/api-version')).body.pinnedVersion).toBe('2026-02-18');

    await page.getByRole('button', { name: 'Pin this version…' }).click();
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'developers-version-confirm');
    await page.getByRole('button', { name: 'Yes, pin 2026-02-19.preview' }).click();
    await expect.poll(() => page.getByText('Pinned to 2026-02-19.preview.').count()).toBe(1);
    expect((await asKey(partner.apiKey, '/v1/api-version')).body.pinnedVersion).toBe('2026-02-19.preview');
    expect((await asKey(partner.apiKey, '/v1/payments')).headers.get('pay-version')).toBe('2026-02-19.preview');
    await expect.poll(() => page.getByText('This is the newest version.').count()).toBe(1);
  });

  it('a session signed in with a narrower key offers only its scopes, cannot pin, and ends when its key is revoked', async () => {
    const narrow = await newPartner(server.db, 'Narrow partner');
    const { apiKey, keyId } = await createApiKey(server.db, narrow.partnerId, ['merchants']);
    const other = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const narrowPage = await other.newPage();
    await narrowPage.goto(`${server.url}/dashboard/developers`);
    await narrowPage.getByLabel('API key').fill(apiKey);
    await narrowPage.getByRole('button', { name: 'Sign in' }).click();
    await narrowPage.getByRole('heading', { name: 'API keys', level: 2 }).waitFor();
    await narrowPage.getByText('Only a session signed in with every scope may change the pin.').waitFor();
    await narrowPage.getByText('Create an API key').click();
    const offered = await narrowPage
      .locator('input[name="scopes"]')
      .evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    expect(offered).toEqual(['merchants']);
    const own = narrowPage.locator(`tr[data-key-id="${keyId}"]`);
    await expect.poll(() => own.textContent()).toContain("this session's key");

    await own.getByRole('button', { name: /^Revoke / }).click();
    await own.getByRole('button', { name: 'Yes, revoke the key' }).click();
    // Its own key revoked, the session ends: the dashboard asks to sign in again.
    await narrowPage.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    await other.close();
    expect(consoleProblems).toEqual([]);
  });
});
