import { type Command, Option } from 'commander';
import { loadConfig } from '../config.ts';
import type { SCOPES } from '../http/auth.ts';
import type { MERCHANT_STATUSES } from '../merchants/merchantResource.ts';
import { CliError, requireEmbeddedDatabase } from './operatorDatabase.ts';

/**
 * The operator commands' names, options and help. What a command does lives in `operatorActions.ts`, imported when
 * the command runs: `paygate --help` and a mistyped option never load the database layer, and neither does a command
 * refused because DATA_DIR holds no database.
 */
function actions(options: { create?: boolean } = {}) {
  if (!options.create) requireEmbeddedDatabase(loadConfig());
  return import('./operatorActions.ts');
}

/** The API key scopes and merchant statuses, spelled here so that help needs no import; the types keep them equal. */
const SCOPE_NAMES = ['merchants', 'payments', 'gateway', 'x402'] as const satisfies typeof SCOPES;
const MERCHANT_STATUS_NAMES = ['active', 'inactive', 'suspended'] as const satisfies typeof MERCHANT_STATUSES;

/** `paygate migrate`: applies the migrations and prints what it applied. */
export function addMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply database migrations')
    .action(async () => (await actions({ create: true })).migrate());
}

/** Partners: create, list, buyer-data threshold, pinned API version, fee schedule. */
export function addPartnerCommands(program: Command): void {
  const partner = program.command('partner').description('partners (accounts)');
  partner
    .command('create')
    .description('create a partner with an all-scope API key and a wallet app')
    .requiredOption('--name <name>', 'display name')
    .action(async ({ name }: { name: string }) => (await actions()).partnerCreate(name));
  partner
    .command('list')
    .description('every partner, oldest first')
    .action(async () => (await actions()).partnerList());
  partner
    .command('set-data-threshold <partnerId> <threshold>')
    .description(
      'ask buyers for their details above a fiat amount: USD:100000 (minor units), 100000 (in the payment currency) or none',
    )
    .action(async (partnerId: string, text: string) => (await actions()).partnerSetDataThreshold(partnerId, text));
  partner
    .command('pin-version <partnerId> <version>')
    .description("set the API version a partner's requests use by default")
    .action(async (partnerId: string, version: string) => (await actions()).partnerPinVersion(partnerId, version));

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
    .action(async (partnerId: string, options: { percentage?: string; fixed: string[] }) =>
      (await actions()).partnerSetFees(partnerId, options),
    );

  const fees = program.command('fees').description('fees the service keeps');
  fees
    .command('show')
    .description("a partner's fee schedule")
    .requiredOption('--partner <partnerId>')
    .action(async ({ partner: partnerId }: { partner: string }) => (await actions()).feesShow(partnerId));
  fees
    .command('report')
    .description(
      "fees charged on a partner's succeeded payments, per asset in token minor units; they stay with the collector",
    )
    .requiredOption('--partner <partnerId>')
    .action(async ({ partner: partnerId }: { partner: string }) => (await actions()).feesReportOf(partnerId));
}

/** API keys, dashboard sign-in links and wallet apps of a partner. */
export function addKeyAndAppCommands(program: Command): void {
  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('create an API key (shown once)')
    .requiredOption('--partner <partnerId>')
    .option('--scopes <scopes>', `comma-separated: ${SCOPE_NAMES.join(',')}`, SCOPE_NAMES.join(','))
    .action(async ({ partner: partnerId, scopes }: { partner: string; scopes: string }) =>
      (await actions()).keyCreate(partnerId, scopes),
    );
  key
    .command('list')
    .description("a partner's API keys: prefix, scopes, whether revoked (never the key itself)")
    .requiredOption('--partner <partnerId>')
    .action(async ({ partner: partnerId }: { partner: string }) => (await actions()).keyList(partnerId));
  key
    .command('revoke <keyId>')
    .description('revoke an API key (takes effect within AUTH_CACHE_TTL_MS)')
    .action(async (keyId: string) => (await actions()).keyRevoke(keyId));

  program
    .command('dashboard-link')
    .description("print a one-time link that signs in to the partner's dashboard (every scope; DASHBOARD_LINK_MINUTES)")
    .requiredOption('--partner <partnerId>')
    .action(async ({ partner: partnerId }: { partner: string }) => (await actions()).consoleLink(partnerId));
  program
    .command('operator-link')
    .description('print a one-time link that signs in to the operator console (DASHBOARD_LINK_MINUTES)')
    .action(async () => (await actions()).consoleLink(null));

  program
    .command('app')
    .description('wallet apps (public App-Id)')
    .command('create')
    .requiredOption('--partner <partnerId>')
    .requiredOption('--name <name>')
    .option('--icon <url>', 'https URL of the app icon')
    .action(async ({ partner: partnerId, name, icon }: { partner: string; name: string; icon?: string }) =>
      (await actions()).appCreate(partnerId, name, icon),
    );
}

/** Merchants: list, buyer-data threshold, status, and their recorded fiat destinations. */
export function addMerchantCommands(program: Command): void {
  const merchant = program.command('merchant').description('merchants');
  merchant
    .command('list')
    .description('merchants of every partner, or of one, oldest first (deleted ones included, marked)')
    .option('--partner <partnerId>')
    .action(async ({ partner: partnerId }: { partner?: string }) => (await actions()).merchantList(partnerId));
  merchant
    .command('set-data-threshold <merchantId> <threshold>')
    .description(
      "the merchant's own buyer-data threshold: USD:100000, 100000, none (never ask) or inherit (the partner's)",
    )
    .action(async (merchantId: string, text: string) => (await actions()).merchantSetDataThreshold(merchantId, text));
  merchant
    .command('set-status <merchantId>')
    .addArgument(program.createArgument('<status>', 'new status').choices(MERCHANT_STATUS_NAMES))
    .action(async (merchantId: string, status: (typeof MERCHANT_STATUSES)[number]) =>
      (await actions()).merchantSetStatus(merchantId, status),
    );

  program
    .command('fiat-destination')
    .description('fiat settlement destinations (recorded, not operated, by this service)')
    .command('add')
    .requiredOption('--merchant <merchantId>')
    .requiredOption('--bank-type <type>', 'e.g. ACH, SEPA, FPS')
    .addOption(new Option('--status <status>').default('active'))
    .action(
      async ({ merchant: merchantId, bankType, status }: { merchant: string; bankType: string; status: string }) =>
        (await actions()).fiatDestinationAdd(merchantId, bankType, status),
    );
}

/** Tokens a network does not list, left at deposit addresses: list them, and have one moved to the collector. */
export function addDepositCommands(program: Command): void {
  const deposits = program.command('deposits').description("transfers to payments' deposit addresses");
  deposits
    .command('unlisted')
    .description('transfers of tokens their network does not list, still at deposit addresses (JSON lines)')
    .action(async () => (await actions()).depositsUnlisted());
  deposits
    .command('recover')
    .description(
      "move a token the service does not sweep by itself (unlisted, sent after the address stopped being watched, or sent straight to a merchant's own address) from a payment's deposit address or a merchant's own address (its x402 payTo) to the collector: the running service's sweeper sends it, the collector pays the gas",
    )
    .option('--payment <paymentId>', 'the payment whose deposit address holds it')
    .option('--merchant <merchantId>', 'the merchant whose own address holds it')
    .requiredOption('--network <caip2>', 'e.g. eip155:8453')
    .requiredOption('--token <address>', 'the token contract')
    .action(
      async ({
        payment,
        merchant,
        network,
        token,
      }: {
        payment?: string;
        merchant?: string;
        network: string;
        token: string;
      }) => (await actions()).depositsRecover({ payment, merchant, network, token }),
    );
}

/** Transfers into the collector that no record of the service holds: list them, and keep one as funding. */
export function addInflowCommands(program: Command): void {
  const inflows = program.command('inflows').description('transfers into the collector that no record holds');
  inflows
    .command('list')
    .description(
      'unsolicited transfers into the collector (no payment, sweep, settle or funding holds them), owed to their senders (JSON lines)',
    )
    .option('--all', 'also those kept as funding')
    .action(async ({ all }: { all?: boolean }) => (await actions()).inflowsList({ all: all === true }));
  inflows
    .command('return <inflowId>')
    .description(
      "send an unsolicited transfer back to its sender: the running service's collector sends it (the collector pays the gas), once, and the ledger pays it out of what it owes that sender",
    )
    .action(async (inflowId: string) => (await actions()).inflowsReturn(inflowId));
  inflows
    .command('keep <inflowId>')
    .description(
      "an unsolicited transfer becomes the operator's funding (recorded once; `paygate ledger fund` names it so)",
    )
    .action(async (inflowId: string) => (await actions()).inflowsKeep(inflowId));
}

/** `paygate screening load` and `paygate screening blocked`: address screening's list and its refusals. */
export function addScreeningCommands(program: Command): void {
  const screening = program.command('screening').description('address screening (SCREENING=list or http)');
  screening
    .command('load <file>')
    .description(
      "screen against this list from now on, in every process (one address per line, CAIP-10 or plain, or OFAC's SDN XML); prints its version",
    )
    .action(async (file: string) => (await actions()).screeningLoad(file));
  screening
    .command('blocked')
    .description('the accounts screening blocked, newest first (JSON lines)')
    .option('--limit <n>', 'at most this many', '100')
    .action(async ({ limit }: { limit: string }) => {
      if (!/^[1-9]\d{0,5}$/.test(limit)) throw new CliError('--limit must be a whole number from 1 to 999999');
      await (await actions()).screeningBlocked({ limit: Number(limit) });
    });
}

/** `paygate audit` (the ledger against the records and the chain) and `paygate ledger fund`. */
export function addAuditCommand(program: Command): void {
  program
    .command('audit')
    .description(
      "check the ledger: each merchant's balance and its buyers' against its records, and the collector's balance of each token against the chain (JSON lines; exit 1 on any difference)",
    )
    .option('--no-chain', "check the ledger against the records only, not the collector's balances on chain")
    .action(async ({ chain }: { chain: boolean }) => (await actions()).audit({ chain }));
  program
    .command('ledger')
    .description('the ledger of value held and owed')
    .command('fund')
    .description('record value put into the collector from outside, e.g. gas money (a negative amount: taken out)')
    .requiredOption('--asset <caip19>', 'the token as paygate audit names it, e.g. eip155:8453/slip44:60')
    .requiredOption('--amount <minor units>', "whole number of the token's minor units")
    .option('--reference <id>', 'names the entry (e.g. the top-up transaction), so a second run records nothing')
    .option('--from <account>', 'what a negative amount is taken from: operator (its funding) or fees', 'operator')
    .action(async (options: { asset: string; amount: string; reference?: string; from: string }) =>
      (await actions()).ledgerFund(options),
    );
}
