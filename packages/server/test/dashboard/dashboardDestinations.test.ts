import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';
import { saveDashboardScreenshots } from './support/dashboardBrowser.ts';
import { consoleContext, expectAccessible, LISTED_NETWORKS, signedInDashboard } from './support/dashboardSession.ts';

const BASE = LISTED_NETWORKS.find((network) => network.caip2 === 'eip155:8453')!;
const BASE_USDC = BASE.tokens.find((token) => token.symbol === 'USDC')!;
const FIRST_ACCOUNT = '0x1111111111111111111111111111111111111111';
const SECOND_ACCOUNT = '0x2222222222222222222222222222222222222222';

describe('dashboard settlement destinations in Chromium: a token picked from the accepted ones, changed, removed', () => {
  let server: TestServer;
  let partner: TestPartner;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchantId: string;
  const consoleProblems: string[] = [];

  const destinations = async () =>
    (await call(server, `/v1/merchants/${merchantId}/settlements`, { headers: { 'api-key': partner.apiKey } })).body
      .crypto as { id: string; asset: string; destination: string }[];
  const section = () => page.locator('section[aria-labelledby="destinations-heading"]');

  beforeAll(async () => {
    server = await startTestServer({ context: { chains: new ChainRegistry(LISTED_NETWORKS) } });
    partner = await newPartner(server.db, 'Destinations partner');
    const created = await call(server, '/v1/merchants', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'idempotency-key': 'destinations-merchant' },
      body: { merchantName: 'Harbour Café', merchantEmail: 'owner@harbour.example' },
    });
    merchantId = created.body.merchant.id;
    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    page = await signedInDashboard(server, context, partner.partnerId);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('offers every accepted token by network and adds a bare address as an account on the token’s chain', async () => {
    await page.goto(`${server.url}/dashboard/merchants/${merchantId}`);
    await page.getByRole('heading', { name: 'Settlement destinations' }).waitFor();
    await section().getByText('No destination yet').waitFor();
    await section().getByText('Add a settlement destination').click();
    const offered = await page
      .getByLabel('Token')
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    const accepted = LISTED_NETWORKS.filter((network) => network.rpcUrl).flatMap((network) =>
      network.tokens.map((token) => token.caip19),
    );
    expect(offered.sort()).toEqual(accepted.sort());
    await expectAccessible(page);

    // An address of another kind is refused in words, and nothing is stored.
    await page.getByLabel('Token').selectOption(BASE_USDC.caip19);
    await page.getByLabel('Receiving account').fill('not-an-address');
    await page.getByRole('button', { name: 'Add destination' }).click();
    await expect.poll(() => section().getByRole('alert').textContent()).toMatch(/^Not added: /);
    expect(await destinations()).toEqual([]);

    await page.getByLabel('Receiving account').fill(FIRST_ACCOUNT);
    await page.getByRole('button', { name: 'Add destination' }).click();
    await expect
      .poll(() => section().getByRole('status').textContent())
      .toBe(`USDC on ${BASE.name} now settles to eip155:8453:${FIRST_ACCOUNT}.`);
    const stored = await destinations();
    expect(stored.map(({ asset, destination }) => ({ asset, destination }))).toEqual([
      { asset: BASE_USDC.caip19, destination: `eip155:8453:${FIRST_ACCOUNT}` },
    ]);
    // A token with a destination is offered no more.
    await section().getByText('Add a settlement destination').click();
    expect(
      await page
        .getByLabel('Token')
        .locator('option')
        .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value)),
    ).not.toContain(BASE_USDC.caip19);
    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'merchant-destinations');
  });

  it('changes where a token settles, then removes the destination after a confirmation', async () => {
    const [stored] = await destinations();
    const row = page.locator(`tr[data-destination-id="${stored!.id}"]`);
    await row.getByRole('button', { name: 'Change…' }).click();
    await row.getByLabel('New receiving account').fill(`eip155:8453:${SECOND_ACCOUNT}`);
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await destinations())[0]?.destination).toBe(`eip155:8453:${SECOND_ACCOUNT}`);
    await expect.poll(() => row.textContent()).toContain(SECOND_ACCOUNT);

    await row.getByRole('button', { name: 'Remove…' }).click();
    await row.getByRole('button', { name: 'Keep it' }).click();
    expect(await destinations()).toHaveLength(1);
    await row.getByRole('button', { name: 'Remove…' }).click();
    await expectAccessible(page);
    await row.getByRole('button', { name: 'Yes, remove it' }).click();
    await section().getByText('No destination yet').waitFor();
    expect(await destinations()).toEqual([]);
    expect(consoleProblems).toEqual([]);
  });
});
