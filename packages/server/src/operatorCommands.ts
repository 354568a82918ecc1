import { existsSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { type Config, loadConfig } from './config.ts';
import { type DatabaseHandle, type Db, openDatabase, migrateToLatest } from './db/database.ts';
import { formatDataThreshold } from './gateway/dataCollection/threshold.ts';
import {
  parseMerchantDataThreshold,
  parsePartnerDataThreshold,
  setMerchantDataThreshold,
  setPartnerDataThreshold,
} from './gateway/dataCollection/thresholdSettings.ts';
import { SCOPES } from './http/auth.ts';
import { newId } from './ids.ts';
import { MERCHANT_STATUSES } from './merchants/merchantResource.ts';
import {
  createApiKey,
  createApp,
  createPartner,
  parseScopes,
  pinPartnerVersion,
  revokeApiKey,
} from './partners/partners.ts';
import { feeSchedule, feesReport, setFeeSchedule } from './settlement/feeSchedules.ts';
import type { FeeSchedule } from './settlement/fees.ts';
import { parseFixedFee } from './settlement/fees.ts';
import { UserFacingError } from './userFacingError.ts';

/** A refused operator command; the command line prints its message alone. */
class CliError extends UserFacingError {}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function scheduleJson(schedule: FeeSchedule) {
  return {
    percentage: schedule.percentage,
    fixed: schedule.fixed.map((fee) => ({ currency: fee.currency, amount: fee.amount.toString() })),
  };
}

async function requirePartner(db: Db, partnerId: string): Promise<void> {
  const found = await db.selectFrom('partners').select('id').where('id', '=', partnerId).executeTakeFirst();
  if (!found) throw new CliError(`partner ${partnerId} does not exist`);
}

/**
 * An operator command without `DATABASE_URL` joins the embedded database of `DATA_DIR`; where there is none, it says
 * where it looked instead of creating an empty one the running service would never see.
 */
function requireEmbeddedDatabase(config: Config): void {
  if (config.databaseUrl) return;
  const cluster = path.resolve(config.dataDir, 'postgres');
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    throw new CliError(
      `no database in ${cluster}: set DATA_DIR to the folder the service uses (it starts with \`paygate start\`), ` +
        'or DATABASE_URL to its PostgreSQL; `paygate migrate` creates a new one there',
    );
  }
}

/**
 * Opens and migrates the configured database for one operator command, then closes it. Only `migrate` (`create`)
 * makes a new embedded database.
 */
async function withDatabase<T>(
  run: (handle: DatabaseHandle, config: Config) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  if (!options.create) requireEmbeddedDatabase(config);
  const handle = await openDatabase(config);
  try {
    await migrateToLatest(handle.db, handle.url);
    return await run(handle, config);
  } finally {
    await handle.close();
  }
}

/** `paygate migrate`: applies the migrations and prints what it applied. */
export function addMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply database migrations')
    .action(() =>
      withDatabase(async ({ db, url }) => printJson({ applied: await migrateToLatest(db, url) }), { create: true }),
    );
}

/** Partners: create, buyer-data threshold, pinned API version, fee schedule. */
export function addPartnerCommands(program: Command): void {
  const partner = program.command('partner').description('partners (accounts)');
  partner
    .command('create')
    .description('create a partner with an all-scope API key and a wallet app')
    .requiredOption('--name <name>', 'display name')
    .action(({ name }: { name: string }) => withDatabase(async ({ db }) => printJson(await createPartner(db, name))));
  partner
    .command('list')
    .description('every partner, oldest first')
    .action(() =>
      withDatabase(async ({ db }) => {
        const partners = await db
          .selectFrom('partners')
          .select(['id', 'name', 'pinned_version', 'created_at'])
          .orderBy('id')
          .execute();
        printJson(
          partners.map((row) => ({
            partnerId: row.id,
            name: row.name,
            pinnedVersion: row.pinned_version,
            createdAt: row.created_at.toISOString(),
          })),
        );
      }),
    );
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

  addFeeCommands(program, partner);
}

function addFeeCommands(program: Command, partner: Command): void {
  partner
    .command('set-fees <partnerId>')
    .description("replace a partner's fee schedule (applies to payments that succeed from now on)")
    .option('--percentage <percent>', 'percent of every payment as a decimal, e.g. 1.5 (0 unless given)')
    .option(
      '--fixed <CURRENCY:MINOR>',
      'fixed fee per payment in minor units of a currency, e.g. USD:30 for 0.30 USD; repeat for other currencies',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action((partnerId: string, options: { percentage?: string; fixed: string[] }) => {
      // The schedule is replaced whole: with nothing given it would silently become zero.
      if (options.percentage === undefined && options.fixed.length === 0) {
        throw new CliError('nothing to set: give --percentage and/or --fixed (--percentage 0 clears the percentage)');
      }
      return withDatabase(async ({ db }) => {
        const schedule = await setFeeSchedule(db, partnerId, {
          percentage: options.percentage ?? '0',
          fixed: options.fixed.map(parseFixedFee),
        });
        printJson({ partnerId, ...scheduleJson(schedule) });
      });
    });

  const fees = program.command('fees').description('fees the service keeps');
  fees
    .command('show')
    .description("a partner's fee schedule")
    .requiredOption('--partner <partnerId>')
    .action(({ partner: partnerId }: { partner: string }) =>
      withDatabase(async ({ db }) => {
        await requirePartner(db, partnerId);
        printJson({ partnerId, ...scheduleJson(await feeSchedule(db, partnerId)) });
      }),
    );
  fees
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
          schedule: scheduleJson(report.schedule),
        });
      }),
    );
}

/** API keys and wallet apps of a partner. */
export function addKeyAndAppCommands(program: Command): void {
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
    .command('list')
    .description("a partner's API keys: prefix, scopes, whether revoked (never the key itself)")
    .requiredOption('--partner <partnerId>')
    .action(({ partner: partnerId }: { partner: string }) =>
      withDatabase(async ({ db }) => {
        await requirePartner(db, partnerId);
        const keys = await db
          .selectFrom('api_keys')
          .select(['id', 'display_prefix', 'scopes', 'created_at', 'revoked_at'])
          .where('partner_id', '=', partnerId)
          .orderBy('id')
          .execute();
        printJson(
          keys.map((row) => ({
            keyId: row.id,
            prefix: row.display_prefix,
            scopes: row.scopes,
            createdAt: row.created_at.toISOString(),
            revokedAt: row.revoked_at?.toISOString() ?? null,
          })),
        );
      }),
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
}

/** Merchants: buyer-data threshold, status, and their recorded fiat destinations. */
export function addMerchantCommands(program: Command): void {
  const merchant = program.command('merchant').description('merchants');
  merchant
    .command('list')
    .description('merchants of every partner, or of one, oldest first (deleted ones included, marked)')
    .option('--partner <partnerId>')
    .action(({ partner: partnerId }: { partner?: string }) =>
      withDatabase(async ({ db }) => {
        let query = db
          .selectFrom('merchants')
          .select(['id', 'partner_id', 'name', 'status', 'deleted_at', 'created_at'])
          .orderBy('id');
        if (partnerId) query = query.where('partner_id', '=', partnerId);
        const merchants = await query.execute();
        printJson(
          merchants.map((row) => ({
            merchantId: row.id,
            partnerId: row.partner_id,
            name: row.name,
            status: row.status,
            deleted: row.deleted_at !== null,
            createdAt: row.created_at.toISOString(),
          })),
        );
      }),
    );
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

  addFiatDestinationCommands(program);
}

function addFiatDestinationCommands(program: Command): void {
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
}
