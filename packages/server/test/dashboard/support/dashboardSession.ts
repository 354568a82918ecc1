import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { MAINNET_NETWORKS } from '../../../src/chains/mainnets.ts';
import { createSignInLink } from '../../../src/dashboard/sessions.ts';
import type { TestServer } from '../../support/testServer.ts';
import { DASHBOARD_VIEWPORTS, seriousAxeViolations } from './dashboardBrowser.ts';

/**
 * Mainnet networks as a deployment with nodes for them lists them (`GET /v1/networks` names only networks with an
 * RPC URL); nothing here contacts a chain.
 */
export const LISTED_NETWORKS = MAINNET_NETWORKS.map((network) =>
  network.caip2 === 'eip155:8453' || network.caip2 === 'eip155:1'
    ? { ...network, rpcUrl: 'http://127.0.0.1:9/never-called' }
    : network,
);

/**
 * A browser context as a person's (en-US, UTC, desktop) whose console errors other than refused requests (a policy
 * violation, a script error) are collected in `problems`.
 */
export async function consoleContext(browser: Browser, problems: string[]): Promise<BrowserContext> {
  const context = await browser.newContext({
    locale: 'en-US',
    timezoneId: 'UTC',
    viewport: DASHBOARD_VIEWPORTS.desktop,
  });
  context.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      problems.push(message.text());
    }
  });
  context.on('weberror', (error) => problems.push(String(error.error())));
  return context;
}

/** A page signed in to a partner's dashboard by a one-time link, on its landing page. */
export async function signedInDashboard(server: TestServer, context: BrowserContext, partnerId: string): Promise<Page> {
  const link = await createSignInLink(server.db, partnerId, 15 * 60_000, new Date());
  const page = await context.newPage();
  await page.goto(`${server.url}/dashboard/link/${link.token}`);
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  // The link answers `/dashboard`, which shows the overview under its own address.
  await page.waitForURL((url) => url.pathname === '/dashboard/overview');
  return page;
}

export async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousAxeViolations(page)).toEqual([]);
}

/** A list total in standard units (a float of the API) as exact minor units at the currency's digits. */
export function minorOf(amount: number, decimals: number): bigint {
  return BigInt(amount.toFixed(decimals).replace('.', ''));
}
