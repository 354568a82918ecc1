import { randomBytes } from 'node:crypto';
import type { Devnet, DevnetBuyer } from '@paygate/devnet';
import { setMerchantDataThreshold } from '../../../server/src/gateway/dataCollection/thresholdSettings.ts';
import { createApp } from '../../../server/src/partners/partners.ts';
import { createMerchant, createPayment } from '../../../server/test/support/fixtures.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../../../server/test/support/testServer.ts';
import { GatewayClient } from '../../src/gatewayClient.ts';
import { startDevnetService } from '../../../server/test/support/devnetService.ts';
import { ensureCurrentWalletBuild } from './currentBuild.ts';

/** A real service paying on a real devnet, with a partner, a merchant and a wallet app to pay from. */
export interface DevnetGateway {
  devnet: Devnet;
  /** The devnet's data directory; its `manifest.json` lists chains and buyer keys. */
  devnetDir: string;
  server: TestServer;
  partner: TestPartner;
  merchantId: string;
  app: { appId: string; clientId: string };
  /** A GatewayClient authenticated as the wallet app. */
  client: GatewayClient;
  buyer(name: string): DevnetBuyer;
  evmChain: string;
  solanaChain: string;
  rpcUrls: Record<string, string>;
  newPayment(body?: Record<string, unknown>): Promise<{ paymentId: string; gatewayUrl: string }>;
  /** A 10.00 USD payment of a merchant that asks buyer data above 5.00 USD: its options carry collectData. */
  newPaymentNeedingData(): Promise<{ paymentId: string; gatewayUrl: string }>;
  /** The payment as the merchant's list shows it. */
  listed(paymentId: string): Promise<any>;
  close(): Promise<void>;
}

export async function startDevnetGateway(): Promise<DevnetGateway> {
  const [{ devnet, devnetDir, server, close }] = await Promise.all([
    startDevnetService({
      prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' },
      env: { DATA_ENCRYPTION_KEY: randomBytes(32).toString('hex') },
    }),
    ensureCurrentWalletBuild(),
  ]);
  const partner = await newPartner(server.db);
  const merchantId = (await createMerchant(server, partner.apiKey)).id;
  const dataMerchantId = (
    await createMerchant(server, partner.apiKey, { merchantName: 'Data Shop', merchantEmail: 'owner@data-shop.com' })
  ).id;
  await setMerchantDataThreshold(server.db, dataMerchantId, {
    kind: 'threshold',
    threshold: { currency: 'USD', amount: 500n },
  });
  const created = await createApp(server.db, partner.partnerId, 'Wallet SDK test', 'https://wallet.example/icon.png');
  const app = { appId: created.appId, clientId: 'device-1' };
  const rpcUrls = Object.fromEntries(devnet.manifest.evm.map((chain) => [chain.caip2, chain.rpcUrl]));
  return {
    devnet,
    devnetDir,
    server,
    partner,
    merchantId,
    app,
    client: new GatewayClient({ baseUrl: server.url, auth: app }),
    buyer(name) {
      const found = devnet.manifest.buyers.find((candidate) => candidate.name === name);
      if (!found) throw new Error(`no devnet buyer ${name}`);
      return found;
    },
    evmChain: devnet.manifest.evm[0]!.caip2,
    solanaChain: devnet.manifest.solana.caip2,
    rpcUrls,
    newPayment: (body) => createPayment(server, partner.apiKey, merchantId, body),
    newPaymentNeedingData: () => createPayment(server, partner.apiKey, dataMerchantId),
    async listed(paymentId) {
      const list = await call(server, '/v1/merchants/payments?limit=200', {
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      });
      if (list.status !== 200) throw new Error(`payment list failed: ${list.status} ${list.text}`);
      return list.body.data.find((item: { paymentId: string }) => item.paymentId === paymentId);
    },
    async close() {
      await close();
    },
  };
}
