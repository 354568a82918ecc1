import { type Config, loadConfig } from '../config.ts';
import {
  type DatabaseHandle,
  type Db,
  inTransaction,
  migrateToLatest,
  migrationsPending,
  openDatabase,
} from '../db/database.ts';
import { formatDataThreshold } from '../gateway/dataCollection/threshold.ts';
import {
  formatPartnerDataThreshold,
  parseMerchantDataThreshold,
  parsePartnerDataThreshold,
  setMerchantDataThreshold,
  setPartnerDataThreshold,
} from '../gateway/dataCollection/thresholdSettings.ts';
import { newId } from '../ids.ts';
import type { MERCHANT_STATUSES } from '../merchants/merchantResource.ts';
import {
  createApiKey,
  createApp,
  createPartner,
  parseScopes,
  pinPartnerVersion,
  revokeApiKey,
} from '../partners/partners.ts';
import { feeSchedule, feesReport, setFeeSchedule } from '../settlement/feeSchedules.ts';
import type { FeeSchedule } from '../settlement/fees.ts';
import { parseFixedFee } from '../settlement/fees.ts';
import { CliError, requireEmbeddedDatabase } from './operatorDatabase.ts';
import { keepUnsolicitedInflow, unsolicitedInflowOf, unsolicitedInflows } from '../collectorInflows/keepInflow.ts';
import { FEES, InsufficientBalanceError, OPERATOR, postFunding } from '../ledger/ledger.ts';
import { storedTransactionHash } from '../ledger/funding.ts';
import { createSignInLink } from '../dashboard/sessions.ts';
import { setMerchantStatus } from '../merchants/merchantStatus.ts';

/**
 * What the operator commands do, once their arguments are parsed (`operatorCommands.ts` defines them and imports
 * this module only when one runs). Each prints JSON on stdout or throws a message for the operator.
 */

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
    // Loading the migrations costs more than most commands; a database the service already migrated needs none.
    if (options.create || (await migrationsPending(handle.db))) await migrateToLatest(handle.db, handle.url);
    return await run(handle, config);
  } finally {
    await handle.close();
  }
}

export function migrate(): Promise<void> {
  return withDatabase(async ({ db, url }) => printJson({ applied: await migrateToLatest(db, url) }), { create: true });
}

export function partnerCreate(name: string): Promise<void> {
  return withDatabase(async ({ db }) => printJson(await createPartner(db, name)));
}

export function partnerList(): Promise<void> {
  return withDatabase(async ({ db }) => {
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
  });
}

export function partnerSetDataThreshold(partnerId: string, text: string): Promise<void> {
  return withDatabase(async ({ db }) => {
    const threshold = parsePartnerDataThreshold(text);
    await setPartnerDataThreshold(db, partnerId, threshold);
    printJson({ partnerId, dataThreshold: formatPartnerDataThreshold(threshold) });
  });
}

export function partnerPinVersion(partnerId: string, version: string): Promise<void> {
  return withDatabase(async ({ db }) => {
    await pinPartnerVersion(db, partnerId, version);
    printJson({ partnerId, pinnedVersion: version });
  });
}

export function partnerSetFees(partnerId: string, options: { percentage?: string; fixed: string[] }): Promise<void> {
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
}

export function feesShow(partnerId: string): Promise<void> {
  return withDatabase(async ({ db }) => {
    await requirePartner(db, partnerId);
    printJson({ partnerId, ...scheduleJson(await feeSchedule(db, partnerId)) });
  });
}

export function feesReportOf(partnerId: string): Promise<void> {
  return withDatabase(async ({ db }) => {
    const report = await feesReport(db, partnerId);
    printJson({ ...report, schedule: scheduleJson(report.schedule) });
  });
}

export function keyCreate(partnerId: string, scopes: string | undefined): Promise<void> {
  return withDatabase(async ({ db }) =>
    printJson(await createApiKey(db, partnerId, scopes === undefined ? undefined : parseScopes(scopes))),
  );
}

export function keyList(partnerId: string): Promise<void> {
  return withDatabase(async ({ db }) => {
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
  });
}

export function keyRevoke(keyId: string): Promise<void> {
  return withDatabase(async ({ db }) => {
    await revokeApiKey(db, keyId);
    printJson({ keyId, revoked: true });
  });
}

/**
 * A one-time link to a partner's dashboard, or to the operator console (`partnerId` null): the token is printed once
 * and kept only as its hash.
 */
export function consoleLink(partnerId: string | null): Promise<void> {
  return withDatabase(async ({ db }, config) => {
    const link = await createSignInLink(db, partnerId, config.dashboard.linkMs, new Date());
    const console = partnerId === null ? 'operator' : 'dashboard';
    printJson({ url: `${config.baseUrl}/${console}/link/${link.token}`, expiresAt: link.expiresAt.toISOString() });
  });
}

export function appCreate(partnerId: string, name: string, icon: string | undefined): Promise<void> {
  return withDatabase(async ({ db }) => printJson(await createApp(db, partnerId, name, icon)));
}

export function merchantList(partnerId: string | undefined): Promise<void> {
  return withDatabase(async ({ db }) => {
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
  });
}

export function merchantSetDataThreshold(merchantId: string, text: string): Promise<void> {
  return withDatabase(async ({ db }) => {
    const setting = parseMerchantDataThreshold(text);
    await setMerchantDataThreshold(db, merchantId, setting);
    const shown =
      setting.kind === 'threshold'
        ? formatDataThreshold(setting.threshold)
        : setting.kind === 'never'
          ? 'none'
          : 'inherit';
    printJson({ merchantId, dataThreshold: shown });
  });
}

export function merchantSetStatus(merchantId: string, status: (typeof MERCHANT_STATUSES)[number]): Promise<void> {
  return withDatabase(async ({ db }) => {
    if (!(await setMerchantStatus(db, merchantId, status))) throw new CliError(`merchant ${merchantId} does not exist`);
    printJson({ merchantId, status });
  });
}

export function fiatDestinationAdd(merchant: string, bankType: string, status: string): Promise<void> {
  return withDatabase(async ({ db }) => {
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
  });
}

export function depositsUnlisted(): Promise<void> {
  return withDatabase(async ({ db }) => {
    const { unlistedDeposits } = await import('../deposits/depositRecovery.ts');
    for (const line of await unlistedDeposits(db)) printJson(line);
  });
}

export function depositsRecover(request: {
  payment?: string | undefined;
  merchant?: string | undefined;
  network: string;
  token: string;
}): Promise<void> {
  const { payment, merchant, network, token } = request;
  if ((payment === undefined) === (merchant === undefined))
    throw new CliError('name the address to empty with one of --payment <paymentId> or --merchant <merchantId>');
  return withDatabase(async ({ db }) => {
    const { requestRecovery } = await import('../deposits/depositRecovery.ts');
    printJson(
      await requestRecovery(
        db,
        payment === undefined
          ? { merchantId: merchant as string, network, token }
          : { paymentId: payment, network, token },
      ),
    );
  });
}

/**
 * Takes the collector's transactions on a network that the journals do not hold as sent: the service, which refuses
 * to send there while they are missing, sends again. Refused when none is missing.
 */
export function collectorAcceptUnjournaled(network: string): Promise<void> {
  return withDatabase(async ({ db }, config) => {
    const { acceptUnjournaledTransactions } = await import('../composition/collectorJournal.ts');
    const accepted = await acceptUnjournaledTransactions(db, config, network);
    if (accepted.namespace === 'solana') {
      if (!accepted.signatures.length)
        throw new CliError(`the journal holds every transaction the collector signed on ${network}: nothing to accept`);
      printJson({ network, accepted: String(accepted.signatures.length), signatures: accepted.signatures });
      return;
    }
    const { journalNonce, chainNonce } = accepted;
    if (journalNonce === undefined || chainNonce <= journalNonce)
      throw new CliError(
        `the journal holds every transaction the collector sent on ${network} (its nonce there is ${chainNonce}${journalNonce === undefined ? ', and the service has sent nothing there' : `, the journal's next ${journalNonce}`}): nothing to accept`,
      );
    printJson({
      network,
      journalNonce: journalNonce.toString(),
      chainNonce: chainNonce.toString(),
      accepted: (chainNonce - journalNonce).toString(),
    });
  });
}

/**
 * Prints every merchant balance and what buyers are owed, as the ledger and the records give them, the payouts in
 * flight, every account the collector owes that is below zero (always a difference), and the
 * collector's balance of each token and the deposit addresses', on the chain and in the ledger, each chain line
 * with where the chain was read (`readAt`: the network's newest final block, or the Solana commitment); refuses
 * (exit 1) when any two differ.
 */
export function audit(options: { chain: boolean }): Promise<void> {
  return withDatabase(async ({ db }, config) => {
    // Loaded by the commands that use them: they bring the chain clients, which the other commands need not load.
    const [
      {
        auditBuyersBalances,
        auditMerchantBalances,
        auditNegativeBalances,
        auditPayoutsInFlight,
        auditUnattributed,
        auditUnsolicitedInflows,
      },
      { auditConfiguredChains },
    ] = await Promise.all([import('../ledger/audit.ts'), import('../composition/collectorAudit.ts')]);
    const chainChecks = async () => {
      if (!options.chain) return [];
      const { collector, depositAddresses } = await auditConfiguredChains(db, config);
      return [
        ...collector.map((check) => ({ check: 'collector_balance', ...check })),
        ...depositAddresses.map((check) => ({ check: 'deposit_addresses_balance', ...check })),
      ];
    };
    const checks = [
      ...(await auditMerchantBalances(db)).map((check) => ({ check: 'merchant_balance', ...check })),
      ...(await auditBuyersBalances(db)).map((check) => ({ check: 'buyers_balance', ...check })),
      ...(await auditUnattributed(db)).map((check) => ({ check: 'unattributed', ...check })),
      ...(await auditPayoutsInFlight(db)).map((check) => ({ check: 'payouts_in_flight', ...check })),
      ...(await auditUnsolicitedInflows(db)).map((check) => ({ check: 'unsolicited', ...check })),
      ...(await auditNegativeBalances(db)).map((check) => ({ check: 'negative_balance', ...check })),
      ...(await chainChecks()),
    ];
    for (const check of checks) printJson(check);
    const differing = checks.filter((check) => check.difference !== '0');
    if (differing.length) {
      throw new CliError(`${differing.length} balance(s) differ between the ledger and the records or the chain`);
    }
    // For the person at the console; stdout stays one JSON line per check.
    process.stderr.write(
      `paygate: audit: ${checks.length} balance(s) checked${options.chain ? '' : ' (not against the chain)'}, none differs\n`,
    );
  });
}

/**
 * Records value the operator moved into the collector from outside (a negative amount: took out, from its own
 * funding or from the fees, never more than that account holds), in a token of the configured networks (spelled as
 * the registry has it) or a Solana network's SOL, which the collector's fees there are paid in; `reference` names
 * the entry, so running the same command twice records it once.
 */
export function ledgerFund(request: {
  asset: string;
  amount: string;
  reference?: string;
  from?: string;
}): Promise<void> {
  const from = request.from ?? OPERATOR;
  if (from !== OPERATOR && from !== FEES) throw new CliError('--from must be operator or fees');
  if (!/^-?[1-9][0-9]*$/.test(request.amount))
    throw new CliError("--amount must be a whole number of the token's minor units, not 0 (negative: taken out)");
  if (request.reference !== undefined && !/^[\w.:-]{1,100}$/.test(request.reference))
    throw new CliError('--reference must be 1 to 100 letters, digits or . _ : -');
  return withDatabase(async ({ db }, config) => {
    // A transaction hash is spelled one way, as the chain followers store it.
    const reference = request.reference === undefined ? undefined : storedTransactionHash(request.reference);
    const unsolicited = reference === undefined ? undefined : await unsolicitedInflowOf(db, reference);
    if (unsolicited) {
      throw new CliError(
        `transaction ${reference} is recorded already, as the unsolicited transfer ${unsolicited.id}: keep it with paygate inflows keep ${unsolicited.id}`,
      );
    }
    const [{ configuredNetworks }, { ChainRegistry }] = await Promise.all([
      import('../composition/collectorAudit.ts'),
      import('../chains/registry.ts'),
    ]);
    const networks = await configuredNetworks(config);
    // SOL pays the collector's fees on every Solana network, listed as a token there or not.
    const sol = networks.find(
      (network) => network.namespace === 'solana' && request.asset === `${network.caip2}/slip44:501`,
    );
    const token = sol ? { caip19: request.asset } : new ChainRegistry(networks).token(request.asset);
    if (!token) throw new CliError(`--asset ${request.asset} is no token of the configured networks (CHAINS)`);
    const entry = `funding:${reference ?? newId('fnd')}`;
    const recorded = await inTransaction(db, async (trx) => {
      const before = await trx.selectFrom('ledger_entries').select('id').where('entry', '=', entry).executeTakeFirst();
      if (!before) await postFunding(trx, entry, token.caip19, BigInt(request.amount), from);
      return !before;
    }).catch((error: unknown) => {
      if (!(error instanceof InsufficientBalanceError)) throw error;
      throw new CliError(
        `${from} holds ${error.balance} of ${token.caip19}: ${error.needed} cannot be taken out (${error.shortfall} short)`,
      );
    });
    printJson({ entry, asset: token.caip19, amount: request.amount, recorded });
  });
}

/** `paygate inflows list`: transfers into the collector no record holds, owed to their senders (JSON lines). */
export function inflowsList(options: { all: boolean }): Promise<void> {
  return withDatabase(async ({ db }) => {
    for (const inflow of await unsolicitedInflows(db, { includeKept: options.all })) {
      printJson({
        inflowId: inflow.id,
        network: inflow.chain,
        asset: inflow.asset,
        amount: inflow.amount,
        from: inflow.sender,
        txHash: inflow.tx_hash,
        block: inflow.block_number,
        judgedAt: inflow.judged_at?.toISOString() ?? null,
        keptAt: inflow.kept_at?.toISOString() ?? null,
        returnStatus: inflow.return_status,
        returnedTxHash: inflow.returned_tx_hash,
      });
    }
  });
}

/** `paygate inflows return <id>`: the running service sends an unsolicited transfer back to its sender. */
export function inflowsReturn(inflowId: string): Promise<void> {
  return withDatabase(async ({ db }, config) => {
    const [{ askInflowReturn }, { screeningFromConfig }, { AccountBlockedError }] = await Promise.all([
      import('../collectorInflows/inflowReturns.ts'),
      import('../screening/screeningFromConfig.ts'),
      import('../screening/addressScreening.ts'),
    ]);
    const inflow = await db
      .selectFrom('collector_inflows')
      .select('sender')
      .where('id', '=', inflowId)
      .executeTakeFirst();
    // Nothing goes back to an address the screening blocks, however the operator asks.
    if (inflow?.sender) {
      const screening = screeningFromConfig(config.screening, db, (message) => process.stderr.write(`${message}\n`));
      await screening.check('inflow_return', [inflow.sender]).catch((error: unknown) => {
        if (error instanceof AccountBlockedError)
          throw new CliError(`${inflow.sender} is blocked by address screening: the transfer stays held`);
        throw error;
      });
    }
    const asked = await askInflowReturn(db, inflowId);
    printJson({
      inflowId: asked.id,
      asset: asked.asset,
      amount: asked.amount,
      to: asked.sender,
      returnStatus: asked.return_status,
      returnTry: asked.return_try,
      returnedTxHash: asked.returned_tx_hash,
    });
  });
}

/** `paygate inflows keep <id>`: an unsolicited transfer becomes the operator's funding. */
export function inflowsKeep(inflowId: string): Promise<void> {
  return withDatabase(async ({ db }) => {
    const kept = await keepUnsolicitedInflow(db, inflowId, new Date());
    printJson({ inflowId: kept.id, asset: kept.asset, amount: kept.amount, kept: kept.kept });
  });
}

/**
 * `paygate screening load <file>`: the list of blocked addresses every process screens against from now on (text
 * or OFAC's SDN XML), replacing the one before in one step; prints its version and what it skipped.
 */
export function screeningLoad(file: string): Promise<void> {
  return withDatabase(async ({ db }) => {
    const [{ readFile }, { parseScreeningList }, { loadScreeningList }] = await Promise.all([
      import('node:fs/promises'),
      import('../screening/screeningListFile.ts'),
      import('../screening/listScreening.ts'),
    ]);
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read ${file}: ${error.code ?? error.message}`);
    });
    let parsed: ReturnType<typeof parseScreeningList>;
    try {
      parsed = parseScreeningList(text);
    } catch (error) {
      throw new CliError(`${file}: ${(error as Error).message}`);
    }
    const loaded = await loadScreeningList(db, parsed, file);
    for (const skipped of loaded.skipped) printJson({ skipped: skipped.line, reason: skipped.reason });
    printJson({ version: loaded.version, addresses: loaded.entries, skipped: loaded.skipped.length });
  });
}

/** `paygate screening blocked`: the accounts screening blocked, newest first (JSON lines). */
export function screeningBlocked(options: { limit: number }): Promise<void> {
  return withDatabase(async ({ db }) => {
    const rows = await db
      .selectFrom('screening_decisions')
      .selectAll()
      .where('blocked', '=', true)
      .orderBy('decided_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit)
      .execute();
    for (const row of rows) {
      printJson({
        account: row.account,
        step: row.step,
        paymentId: row.payment_id,
        merchantId: row.merchant_id,
        provider: row.provider,
        listVersion: row.list_version,
        reason: row.reason,
        decidedAt: row.decided_at.toISOString(),
      });
    }
  });
}
