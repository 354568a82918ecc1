import { loadConfig } from '../../src/config.ts';
import { screeningFromConfig } from '../../src/screening/screeningFromConfig.ts';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Devnet, startDevnet } from '@paygate/devnet';
import { generatePrivateKey } from 'viem/accounts';
import { ChainFollowers } from '../../src/chains/chainFollowers.ts';
import { type CollectorKeys, collectorAddresses } from '../../src/chains/collectorKeys.ts';
import { networksFromDevnet } from '../../src/chains/devnetNetworks.ts';
import { FixedPriceSource } from '../../src/chains/prices/fixedPriceSource.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import type { Clock } from '../../src/clock.ts';
import { connect, type Db } from '../../src/db/database.ts';
import { createChainServices } from '../../src/composition/createChainServices.ts';
import { recordFunding } from '../../src/ledger/funding.ts';
import type { ChainServices } from '../../src/gateway/chainServices.ts';
import { PaymentSubmissions } from '../../src/gateway/paymentSubmissions.ts';
import { createIsolatedDatabase } from './isolatedDatabase.ts';
import { type ContextOverrides, startTestServer, type TestServer } from './testServer.ts';

export interface DevnetService {
  devnet: Devnet;
  /** Where the devnet keeps its manifest (for `paygate-wallet --devnet-dir`). */
  devnetDir: string;
  chains: ChainRegistry;
  keys: CollectorKeys;
  services: ChainServices;
  server: TestServer;
  databaseUrl: string;
  close(): Promise<void>;
}

export interface DevnetServiceOptions {
  /** Fixed prices for the tokens that are not pegged to the payment's currency, e.g. `{'EURC/USD': '1.087'}`. */
  prices: Record<string, string>;
  clock?: Clock;
  env?: Record<string, string>;
  context?: ContextOverrides;
  /** Run the gateway's submission workers and the chain followers with the server (default true). */
  workers?: boolean;
  submitMaxAttempts?: number;
  buyerTransferDeadlineMs?: number;
  /** Every network's confirmation depth, instead of the devnet's. */
  confirmations?: number;
}

/**
 * A devnet with a funded collector (its funding recorded as the operator's), a database of its own (gateway workers
 * of other test files, paying on other devnets, must not take its jobs), the chain services, and the service on a
 * socket.
 */
export async function startDevnetService(options: DevnetServiceOptions): Promise<DevnetService> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-devnet-service-'));
  const devnet = await startDevnet({ dataDir });
  const database = await createIsolatedDatabase();
  const networks = networksFromDevnet(devnet.manifest);
  const chains = new ChainRegistry(
    options.confirmations
      ? networks.map((network) => ({ ...network, confirmations: options.confirmations as number }))
      : networks,
  );
  const keys: CollectorKeys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
  const collector = await collectorAddresses(keys);
  const funded = await devnet.fund({ evm: [collector.evm], solana: [collector.solana] });
  const servicesDb: Db = connect(database.url, 4);
  // The faucet's credit is the operator's funding, as the service records it at start: network fees are paid out
  // of it, and the ledger matches the chain from the start.
  await recordFunding(servicesDb, funded);
  let serverUrl = '';
  // The service's screening (SCREENING in `env`), shared with the chain services that screen deposits' senders.
  const screeningSettings = loadConfig({ DATABASE_URL: database.url, ...options.env }).screening;
  const screening =
    screeningSettings.provider === 'off' ? undefined : screeningFromConfig(screeningSettings, servicesDb, () => {});
  const services = await createChainServices({
    db: servicesDb,
    networks: chains.networks,
    keys,
    prices: new FixedPriceSource(options.prices, options.clock ? { clock: options.clock } : {}),
    baseUrl: () => serverUrl,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.submitMaxAttempts ? { submitMaxAttempts: options.submitMaxAttempts } : {}),
    ...(options.buyerTransferDeadlineMs ? { buyerTransferDeadlineMs: options.buyerTransferDeadlineMs } : {}),
    ...(screening ? { screening } : {}),
  });
  const server = await startTestServer({
    databaseUrl: database.url,
    ...(options.env ? { env: options.env } : {}),
    context: {
      chains,
      chainServices: services,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(screening ? { screening } : {}),
      ...options.context,
    },
  });
  serverUrl = server.url;
  const followers = options.workers === false ? undefined : new ChainFollowers(database.url, services.followers);
  const submissions = options.workers === false ? undefined : PaymentSubmissions.start(server.ctx);
  if (submissions) server.ctx.submissions = submissions;
  return {
    devnet,
    devnetDir: dataDir,
    chains,
    keys,
    services,
    server,
    databaseUrl: database.url,
    close: async () => {
      await followers?.stop();
      await submissions?.stop();
      await server.close();
      await servicesDb.destroy();
      await devnet.stop();
      await database.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
