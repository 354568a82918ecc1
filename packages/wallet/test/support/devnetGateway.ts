import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Devnet, type DevnetBuyer, startDevnet } from '@paygate/devnet';
import { generatePrivateKey } from 'viem/accounts';
import { collectorAddresses } from '../../../server/src/chains/collectorKeys.ts';
import { networksFromDevnet } from '../../../server/src/chains/devnetNetworks.ts';
import { FixedPriceSource } from '../../../server/src/chains/prices/fixedPriceSource.ts';
import { ChainRegistry } from '../../../server/src/chains/registry.ts';
import { connect, type Db } from '../../../server/src/db/database.ts';
import { createGatewayServices } from '../../../server/src/gateway/services.ts';
import { gatewayTasks } from '../../../server/src/gateway/submitPayment.ts';
import { setMerchantDataThreshold } from '../../../server/src/gateway/dataCollection/thresholdSettings.ts';
import { createApp } from '../../../server/src/partners/partners.ts';
import { createMerchant, createPayment } from '../../../server/test/support/fixtures.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../../../server/test/support/testServer.ts';
import { GatewayClient } from '../../src/gatewayClient.ts';
import { createIsolatedDatabase } from '../../../server/test/support/isolatedDatabase.ts';

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
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-wallet-'));
  const devnetDir = path.join(dataDir, 'devnet');
  const devnet = await startDevnet({ dataDir: devnetDir });
  const chains = new ChainRegistry(networksFromDevnet(devnet.manifest));
  const keys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
  const collector = await collectorAddresses(keys);
  await devnet.fund({ evm: [collector.evm], solana: [collector.solana] });
  // A database of its own: gateway workers of other files, paying on other devnets, must not take this one's jobs.
  const database = await createIsolatedDatabase();
  const servicesDb: Db = connect(database.url, 4);
  const journalSuffix = randomBytes(4).toString('hex');
  const services = await createGatewayServices({
    db: servicesDb,
    networks: chains.networks,
    keys,
    prices: new FixedPriceSource({ 'EURC/USD': '1.087', 'ETH/USD': '3000' }),
    // Every devnet reports the same Solana id; this devnet's journal entries get a network name of their own.
    solanaJournalNetwork: (caip2) => `${caip2}-${journalSuffix}`,
  });
  const server = await startTestServer({
    databaseUrl: database.url,
    env: { DATA_ENCRYPTION_KEY: randomBytes(32).toString('hex') },
    context: { chains, gateway: services },
    tasks: (ctx) => gatewayTasks(ctx),
  });
  const partner = await newPartner(server.db);
  const merchantId = (await createMerchant(server, partner.apiKey)).id;
  const dataMerchantId = (await createMerchant(server, partner.apiKey, { merchantName: 'Data Shop', merchantEmail: 'owner@data-shop.com' })).id;
  await setMerchantDataThreshold(server.db, dataMerchantId, { kind: 'threshold', threshold: { currency: 'USD', amount: 500n } });
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
      const list = await call(server, '/v1/merchants/payments?limit=200', { headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId } });
      if (list.status !== 200) throw new Error(`payment list failed: ${list.status} ${list.text}`);
      return list.body.data.find((item: { paymentId: string }) => item.paymentId === paymentId);
    },
    async close() {
      await server.close();
      await servicesDb.destroy();
      await database.drop();
      await devnet.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
