import type { Devnet } from '@paygate/devnet';
import type { Browser } from 'playwright-core';
import { createApp } from '../../../src/partners/partners.ts';
import { type DevnetService, type DevnetServiceOptions, startDevnetService } from '../../support/devnetService.ts';
import { createMerchant } from '../../support/fixtures.ts';
import { newPartner, type TestPartner, type TestServer } from '../../support/testServer.ts';
import { launchChromium } from './browser.ts';

/** A service on the devnet with a partner, its merchant "Corner Shop", a wallet app's headers, and Chromium. */
export interface CornerShop {
  testService: DevnetService;
  devnet: Devnet;
  server: TestServer;
  partner: TestPartner;
  merchantId: string;
  /** `App-Id` and `Client-Id` of a wallet app of the partner, for the gateway. */
  walletHeaders: Record<string, string>;
  browser: Browser;
  close(): Promise<void>;
}

/** What the checkout page tests pay into: EURC and ETH at fixed prices, `env` added to the service's. */
export async function startCornerShop(env?: DevnetServiceOptions['env']): Promise<CornerShop> {
  const testService = await startDevnetService({
    prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' },
    ...(env ? { env } : {}),
  });
  const { devnet, server } = testService;
  const partner = await newPartner(server.db);
  const merchantId = (
    await createMerchant(server, partner.apiKey, {
      merchantName: 'Corner Shop',
      merchantEmail: 'owner@corner-shop.com',
    })
  ).id;
  const app = await createApp(server.db, partner.partnerId, 'Test Wallet');
  const browser = await launchChromium();
  return {
    testService,
    devnet,
    server,
    partner,
    merchantId,
    walletHeaders: { 'app-id': app.appId, 'client-id': 'device-1' },
    browser,
    async close() {
      await browser.close();
      await testService.close();
    },
  };
}
