import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTokenExact } from '../../../web/src/ui/format.ts';
import { depositReadPositions } from '../../src/chains/evm/deposits/depositScanner.ts';
import { solanaRpc } from '../../src/chains/solana/rpc.ts';
import { createSignInLink } from '../../src/dashboard/sessions.ts';
import { launchChromium } from '../checkout/support/browser.ts';
import { saveDashboardScreenshots } from '../dashboard/support/dashboardBrowser.ts';
import { consoleContext, expectAccessible } from '../dashboard/support/dashboardSession.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, newPartner } from '../support/testServer.ts';

describe('operator console in Chromium: the Health page shows what GET /operator/api/health answers', () => {
  let service: DevnetService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** The newest answer the page's own requests got. */
  let answered: any;
  const consoleProblems: string[] = [];

  const evm = () => service.devnet.manifest.evm[0]!;
  const solana = () => service.devnet.manifest.solana;
  const devnetHeights = async () => ({
    evm: await createPublicClient({ transport: http(evm().rpcUrl) }).getBlockNumber({ cacheTime: 0 }),
    solana: await solanaRpc(solana().rpcUrl).getSlot({ commitment: 'confirmed' }).send(),
  });
  const text = async (locator: ReturnType<Page['locator']>) => (await locator.textContent())?.trim();

  beforeAll(async () => {
    service = await startDevnetService({
      prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' },
      env: { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' },
    });
    const { server } = service;
    const partner = await newPartner(server.db);
    const merchantId = (await createMerchant(server, partner.apiKey)).id;
    const endpoint = await call(server, '/v1/webhooks', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { url: 'https://127.0.0.1:9/hook', events: ['payment.created'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const usdc = evm().tokens.find((token) => token.symbol === 'USDC')!;
    await quoteDeposit(server.db, service.services.evm.collector, paymentId, {
      chain: evm().caip2,
      asset: usdc.caip19,
    });
    await server.db
      .insertInto('settlement_batches')
      .values({
        id: 'stb_health_page_sent',
        merchant_id: merchantId,
        asset: usdc.caip19,
        network: evm().caip2,
        destination: `${evm().caip2}:0x1111111111111111111111111111111111111111`,
        amount: 2_500_000n,
        status: 'sent',
      })
      .execute();
    browser = await launchChromium();
    context = await consoleContext(browser, consoleProblems);
    page = await context.newPage();
    page.on('response', async (response) => {
      if (new URL(response.url()).pathname === '/operator/api/health' && response.ok())
        answered = await response.json();
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('shows every network’s real height, its follower, the collector, jobs, webhooks and settlements as the API does', async () => {
    const { server } = service;
    // The EVM deposit follower has stored a position once it has read with the deposit address open.
    await expect.poll(async () => (await depositReadPositions(server.db)).length, { timeout: 20_000 }).toBe(1);
    const link = await createSignInLink(server.db, null, 60_000, new Date());
    await page.goto(`${server.url}/operator/link/${link.token}`);
    await page.getByRole('heading', { name: 'Partners', level: 1 }).waitFor();
    const before = await devnetHeights();
    answered = undefined;
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Health' }).click();
    await page.getByRole('heading', { name: 'Service health', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/operator/health');
    await page.getByRole('heading', { name: 'Chains' }).waitFor();
    await expect.poll(() => answered).toBeDefined();
    const after = await devnetHeights();
    const body = answered;

    for (const network of body.networks) {
      const row = page.locator(`tr[data-network="${network.network}"]`);
      expect(await text(row.locator('td[data-label="Node"] .status'))).toBe('Reachable');
      expect(await text(row.locator('.latest'))).toBe(network.node.latest);
    }
    // The heights shown are the devnet's own, read between the two reads of its nodes.
    const shownEvm = BigInt((await text(page.locator(`tr[data-network="${evm().caip2}"] .latest`))) as string);
    expect(shownEvm >= before.evm && shownEvm <= after.evm, `${before.evm} ≤ ${shownEvm} ≤ ${after.evm}`).toBe(true);
    const shownSlot = BigInt((await text(page.locator(`tr[data-network="${solana().caip2}"] .latest`))) as string);
    expect(
      shownSlot >= before.solana && shownSlot <= after.solana,
      `${before.solana} ≤ ${shownSlot} ≤ ${after.solana}`,
    ).toBe(true);
    const evmHealth = body.networks.find((network: any) => network.network === evm().caip2);
    const evmRow = page.locator(`tr[data-network="${evm().caip2}"]`);
    expect(await text(evmRow.locator('.read-up-to'))).toBe(evmHealth.follower.readUpTo);
    expect(await text(evmRow.locator('.lag'))).toBe(evmHealth.follower.lag);
    expect(await text(evmRow.locator('td[data-label="Follower"]'))).toMatch(/^Followed; read to block \d+, \d+ behind/);

    const balances = body.networks.flatMap((network: any) => network.collector.balances);
    expect(balances.length).toBeGreaterThan(0);
    for (const balance of balances) {
      const row = page.locator(`tr[data-asset="${balance.asset}"]`).first();
      expect(await text(row.locator('td[data-label="On the chain"]'))).toBe(formatTokenExact(balance.chain, balance));
      expect(await text(row.locator('td[data-label="In the ledger"]'))).toBe(formatTokenExact(balance.ledger, balance));
    }

    const job = body.jobs.find((each: any) => each.task === 'webhooks_deliver');
    expect(job.due).toBe(1);
    expect(await text(page.locator('tr[data-task="webhooks_deliver"] td[data-label="Due"]'))).toBe(String(job.due));
    expect(body.webhooks.pending).toBe(1);
    expect(await text(page.locator('[data-figure="webhooks-pending"]'))).toBe(String(body.webhooks.pending));
    const [settlement] = body.settlements.unconfirmed;
    expect(settlement).toMatchObject({ status: 'sent', batches: 1, amount: '2500000' });
    const settlementRow = page.locator(`tr[data-status="sent"][data-asset="${settlement.asset}"]`);
    expect(await text(settlementRow.locator('td[data-label="Amount"]'))).toBe('2.5 USDC');
    expect(await text(settlementRow.locator('td[data-label="Batches"]'))).toBe('1');

    await expectAccessible(page);
    await saveDashboardScreenshots(page, 'operator-health');
  });

  it('keeps to its own scripts: no policy violation or script error', () => {
    expect(consoleProblems).toEqual([]);
  });
});
