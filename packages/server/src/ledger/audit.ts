import { type RawBuilder, sql } from 'kysely';
import type { PublicClient } from 'viem';
import type { Db } from '../db/database.ts';
import { parseChainId } from '../chains/caip.ts';
import type { ChainReadPoint, PayoutSender } from '../payouts/payout.ts';
import type { ChainRegistry, NetworkInfo, TokenInfo } from '../chains/registry.ts';
import { type AmountsByAccount, finalBlockNumber } from '../chains/evm/balances.ts';
import { commitmentFor } from '../chains/solana/transactionSender.ts';
import { withX402SvmTables } from '../chains/solana/x402MerchantAccounts.ts';
import { withDepositTables } from '../deposits/depositTables.ts';
import { PAYOUTS_IN_FLIGHT, UNSOLICITED } from './ledger.ts';

/** What a merchant, or the buyers of its payments, are owed in one asset: per the ledger and per the records. */
export interface OwedBalanceCheck {
  merchantId: string;
  asset: string;
  /** Minor units owed, per the ledger. */
  ledger: string;
  /** The same, added up from the records the ledger was written beside. */
  records: string;
  difference: string;
}

/**
 * What the ledger's accounts `<prefix><merchant id>` owe per asset against `records` (rows of merchant_id, asset,
 * amount); a difference means a state change without its entry, or a record changed afterwards.
 */
async function compareOwed(
  db: Db,
  prefix: 'merchant:' | 'buyers:' | 'unattributed:',
  records: RawBuilder<unknown>,
): Promise<OwedBalanceCheck[]> {
  const { rows } = await sql<OwedBalanceCheck>`
    WITH ledger AS (
      SELECT substring(account FROM ${prefix.length + 1}::int) AS merchant_id, asset, -sum(amount) AS amount
      FROM ledger_entries WHERE starts_with(account, ${prefix}) GROUP BY 1, 2
    ), records AS (${records})
    SELECT coalesce(ledger.merchant_id, records.merchant_id) AS "merchantId",
           coalesce(ledger.asset, records.asset) AS asset,
           coalesce(ledger.amount, 0)::text AS ledger,
           coalesce(records.amount, 0)::text AS records,
           (coalesce(ledger.amount, 0) - coalesce(records.amount, 0))::text AS difference
    FROM ledger FULL JOIN records ON records.merchant_id = ledger.merchant_id AND records.asset = ledger.asset
    WHERE coalesce(ledger.amount, 0) <> 0 OR coalesce(records.amount, 0) <> 0
    ORDER BY 1, 2
  `.execute(db);
  return rows;
}

/**
 * What each merchant is owed in each asset: its succeeded payments in no settlement batch, less its on-chain refunds
 * (each taken from the merchant's balance as it was made) that no batch has deducted.
 */
export function auditMerchantBalances(db: Db): Promise<OwedBalanceCheck[]> {
  return compareOwed(
    db,
    'merchant:',
    sql`
      SELECT merchant_id, asset, sum(amount) AS amount FROM (
        SELECT merchant_id, token_asset AS asset, settlement_amount::numeric AS amount FROM payments
        WHERE status = 'succeeded' AND settled_at IS NULL AND settlement_batch_id IS NULL
          AND token_asset IS NOT NULL AND settlement_amount IS NOT NULL
        UNION ALL
        SELECT merchant_id, token_asset, -token_value FROM refunds
        WHERE method = 'onchain' AND status <> 'failed' AND exception_id IS NULL AND token_asset IS NOT NULL
        UNION ALL
        SELECT merchant_id, asset, refunds_deducted FROM settlement_batches WHERE status <> 'failed'
      ) parts GROUP BY 1, 2`,
  );
}

/**
 * What the buyers of each merchant's payments are owed per asset: a transfer that did not simply pay its payment
 * is an exception until a refund sends it back (taken from this account as the refund is made), or the merchant
 * accepts it.
 */
export function auditBuyersBalances(db: Db): Promise<OwedBalanceCheck[]> {
  return compareOwed(
    db,
    'buyers:',
    sql`
      SELECT payments.merchant_id, exception ->> 'asset' AS asset, sum((exception ->> 'amount')::numeric) AS amount
      FROM payments CROSS JOIN LATERAL jsonb_array_elements(payments.exceptions) AS exception
      WHERE jsonb_array_length(payments.exceptions) > 0
        AND exception ->> 'acceptedAt' IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM refunds WHERE refunds.exception_id = exception ->> 'id' AND refunds.status <> 'failed'
        )
      GROUP BY 1, 2`,
  );
}

/**
 * Value that reached the collector for a merchant's payments with no record to hold it (`unattributed:<merchant>`):
 * no record explains it, so every non-zero balance is a difference for the operator to look into.
 */
export function auditUnattributed(db: Db): Promise<OwedBalanceCheck[]> {
  return compareOwed(
    db,
    'unattributed:',
    sql`SELECT NULL::text AS merchant_id, NULL::text AS asset, 0 AS amount WHERE false`,
  );
}

/** What one ledger account holds of an asset, against what the records it stands for add up to. */
export interface AccountCheck {
  asset: string;
  ledger: string;
  records: string;
  difference: string;
}

/** One account's credit balance per asset against `records` (rows of asset and amount), listing both where either is not zero. */
async function compareAccount(db: Db, account: string, records: RawBuilder<unknown>): Promise<AccountCheck[]> {
  const { rows } = await sql<AccountCheck>`
    WITH ledger AS (
      SELECT asset, -sum(amount) AS amount FROM ledger_entries WHERE account = ${account} GROUP BY 1
    ), records AS (
      SELECT asset, sum(amount) AS amount FROM (${records}) parts (asset, amount) GROUP BY 1
    )
    SELECT coalesce(ledger.asset, records.asset) AS asset,
           coalesce(ledger.amount, 0)::text AS ledger,
           coalesce(records.amount, 0)::text AS records,
           (coalesce(ledger.amount, 0) - coalesce(records.amount, 0))::text AS difference
    FROM ledger FULL JOIN records ON records.asset = ledger.asset
    WHERE coalesce(ledger.amount, 0) <> 0 OR coalesce(records.amount, 0) <> 0
    ORDER BY 1
  `.execute(db);
  return rows;
}

/**
 * The ledger's `payouts_in_flight` against the settlement batches, on-chain refunds and unsolicited transfers sent
 * back whose transfer is not final:
 * each was taken from its owner's account when decided, and is in flight until it lands or fails.
 */
export function auditPayoutsInFlight(db: Db): Promise<AccountCheck[]> {
  return compareAccount(
    db,
    PAYOUTS_IN_FLIGHT,
    sql`
      SELECT asset, amount FROM settlement_batches WHERE status IN ('claimed', 'sent')
      UNION ALL
      SELECT token_asset, token_value FROM refunds
      WHERE method = 'onchain' AND status = 'pending' AND token_asset IS NOT NULL
      UNION ALL
      SELECT asset, amount FROM collector_inflows WHERE return_status = 'pending'`,
  );
}

/**
 * The ledger's `unsolicited` against the transfers into the collector judged unsolicited, neither kept by the
 * operator nor sent back (or on their way): each was entered as owed to its sender when judged.
 */
export function auditUnsolicitedInflows(db: Db): Promise<AccountCheck[]> {
  return compareAccount(
    db,
    UNSOLICITED,
    sql`
      SELECT asset, amount FROM collector_inflows
      WHERE outcome = 'unsolicited' AND kept_at IS NULL AND return_status IS DISTINCT FROM 'pending'
        AND return_status IS DISTINCT FROM 'returned'`,
  );
}

/** An account the collector owes that holds less than nothing: `difference` is its balance. */
export interface NegativeBalanceCheck {
  account: string;
  asset: string;
  balance: string;
  difference: string;
}

/**
 * Every account the collector owes (a merchant, its buyers, unattributed or unsolicited value, the fees, the operator) that is below
 * zero: money paid out of it that it never held, so paid with another owner's. None should ever be listed.
 */
export async function auditNegativeBalances(db: Db): Promise<NegativeBalanceCheck[]> {
  const { rows } = await sql<NegativeBalanceCheck>`
    SELECT account, asset, (-sum(amount))::text AS balance, (-sum(amount))::text AS difference
    FROM ledger_entries
    WHERE starts_with(account, 'merchant:') OR starts_with(account, 'buyers:') OR starts_with(account, 'unattributed:')
       OR account IN ('fees', 'operator', 'unsolicited')
    GROUP BY account, asset
    HAVING sum(amount) > 0
    ORDER BY account, asset
  `.execute(db);
  return rows;
}

/** The ledger's balance of one account, per asset. */
async function ledgerBalances(db: Db, account: string): Promise<Map<string, bigint>> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select(['asset', sql<string>`sum(amount)::text`.as('amount')])
    .where('account', '=', account)
    .groupBy('asset')
    .execute();
  return new Map(rows.map((row) => [row.asset, BigInt(row.amount)]));
}

/** What the chain checks compare with: the ledger's balances and the deposits not swept yet, read at one moment. */
export interface AuditedLedger {
  collector: Map<string, bigint>;
  depositAddresses: Map<string, bigint>;
  /**
   * Each deposit address holding an unswept deposit of a listed token, with the asset; on Solana the owner of a
   * merchant's x402 token account (what its associated token account of the asset holds is read).
   */
  unswept: { chain: string; address: string; asset: string | null }[];
}

/**
 * The ledger as the chain checks need it, from one snapshot (a read-only, repeatable-read transaction) that ends
 * before any chain is read: taken before the heads are read, it holds nothing a follower recorded from a block
 * above the one the audit reads, and no connection waits on a node.
 */
export function readAuditedLedger(db: Db): Promise<AuditedLedger> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (snapshot) => ({
      collector: await ledgerBalances(snapshot, 'collector'),
      depositAddresses: await ledgerBalances(snapshot, 'deposit_addresses'),
      unswept: [
        ...(await withDepositTables(snapshot)
          .selectFrom('evm_deposits')
          .select(['chain', 'address', 'asset'])
          .distinct()
          .where('swept_by', 'is', null)
          .where('asset', 'is not', null)
          .execute()),
        ...(await withX402SvmTables(snapshot)
          .selectFrom('solana_x402_deposits as deposit')
          .leftJoin('solana_x402_sweeps as sweep', 'sweep.id', 'deposit.sweep_id')
          .select(['deposit.network as chain', 'deposit.owner as address', 'deposit.asset'])
          .distinct()
          .where((eb) => eb.or([eb('sweep.status', 'is', null), eb('sweep.status', '<>', 'swept')]))
          .execute()),
      ],
    }));
}

/**
 * The ledger's balances of the collector alone, as the collector's check needs them (one statement, so one snapshot);
 * read before any head is, as `readAuditedLedger` is.
 */
export async function readCollectorLedger(db: Db): Promise<Pick<AuditedLedger, 'collector'>> {
  return { collector: await ledgerBalances(db, 'collector') };
}

/** Where the audit reads a network's balances; the same point for every read of the network in one audit. */
export type ChainReadPoints = (network: NetworkInfo) => Promise<ChainReadPoint>;

/**
 * Each network at the newest state the ledger can hold, as the followers record a transaction (the collector's,
 * a buyer's to a deposit address) only once it is final: on EVM the newest block at the network's depth
 * (`finalBlockNumber`), from one read of the head per network, kept for every balance of the network this audit
 * reads (collector and deposit addresses alike); on Solana the commitment its followers record at
 * (`commitmentFor`).
 */
export function finalReadPoints(evmClient: (network: NetworkInfo) => PublicClient): ChainReadPoints {
  const points = new Map<string, Promise<ChainReadPoint>>();
  return (network) => {
    let point = points.get(network.caip2);
    if (!point) {
      point =
        network.namespace === 'solana'
          ? Promise.resolve({ commitment: commitmentFor(network.confirmations) })
          : finalBlockNumber(evmClient(network), network).then((block) => ({ block }));
      points.set(network.caip2, point);
    }
    return point;
  };
}

/** How a check names where it read the chain: `block <number>` on EVM, the commitment on Solana. */
function readAtOf(point: ChainReadPoint): string {
  return 'block' in point ? `block ${point.block}` : point.commitment;
}

/** What the collector holds of one asset on its network, on the chain and per the ledger. */
export interface CollectorBalanceCheck {
  asset: string;
  chain: string;
  ledger: string;
  difference: string;
  /** Where `chain` was read: `block <number>` (EVM), or `confirmed` / `finalized` (Solana). */
  readAt: string;
}

/**
 * The collector's balance of every token and native coin it holds, on the chain against the ledger's `collector`
 * account: what buyers paid in, sweeps, payouts, network fees (rent included on Solana) and the operator's
 * recorded funding. The chain is read where the ledger is (`readPoints`, see `finalReadPoints`: the newest final
 * block, or the commitment the followers record at), so a transfer mined but not final yet shows on neither side;
 * what can still differ for a moment is a final transaction its network's follower has not recorded yet.
 */
export async function auditCollector(
  audited: Pick<AuditedLedger, 'collector'>,
  chains: ChainRegistry,
  senders: Record<string, PayoutSender>,
  readPoints: ChainReadPoints,
): Promise<CollectorBalanceCheck[]> {
  const ledger = audited.collector;
  const checks: CollectorBalanceCheck[] = [];
  for (const [asset, { amount: held, at }] of await collectorHoldings(chains, senders, readPoints)) {
    const recorded = ledger.get(asset) ?? 0n;
    if (held === 0n && recorded === 0n) continue;
    checks.push({
      asset,
      chain: held.toString(),
      ledger: recorded.toString(),
      difference: (held - recorded).toString(),
      readAt: readAtOf(at),
    });
  }
  return checks;
}

/**
 * What the collector holds of every token and native coin of the configured networks, by CAIP-19 id, and where
 * each network was read (`readPoints`).
 */
export async function collectorHoldings(
  chains: ChainRegistry,
  senders: Record<string, PayoutSender>,
  readPoints: ChainReadPoints,
): Promise<Map<string, { amount: bigint; at: ChainReadPoint }>> {
  const holdings = new Map<string, { amount: bigint; at: ChainReadPoint }>();
  for (const network of chains.networks) {
    const sender = senders[parseChainId(network.caip2)?.namespace ?? ''];
    if (!sender) continue;
    const tokens = network.tokens.filter((token) => sender.canSend(token) || token.method === 'native');
    if (!tokens.length) continue;
    const at = await readPoints(network);
    // A network's reads go out together (one JSON-RPC batch on EVM).
    const held = await Promise.all(tokens.map((token) => sender.collectorHolds(token, at)));
    for (const [index, token] of tokens.entries()) holdings.set(token.caip19, { amount: held[index] as bigint, at });
  }
  return holdings;
}

/** What the deposit addresses of one asset hold, on the chain and per the ledger. */
export interface DepositAddressesCheck {
  asset: string;
  chain: string;
  ledger: string;
  difference: string;
  /**
   * Where `chain` was read (`block <number>`, or the commitment on Solana); absent when no address held a deposit of
   * the asset to read.
   */
  readAt?: string;
}

/** Reads what `owners` hold of `tokens` on an EVM network at block `blockNumber`, in one round trip. */
export type EvmBalanceReader = (
  network: NetworkInfo,
  owners: string[],
  tokens: TokenInfo[],
  blockNumber: bigint,
) => Promise<AmountsByAccount>;

/** Reads what the associated token accounts of `owners` hold of `tokens` on a Solana network at `commitment`. */
export type SolanaBalanceReader = (
  network: NetworkInfo,
  owners: string[],
  tokens: TokenInfo[],
  commitment: 'confirmed' | 'finalized',
) => Promise<Pick<AmountsByAccount, 'of'>>;

/**
 * What the deposit addresses hold of every listed token and native coin, on the chain against the ledger's
 * `deposit_addresses` account: the deposits recorded and not swept yet, on Solana those at merchants' x402 token
 * accounts (read with `readSolanaBalances`). The addresses read are those holding such
 * deposits, each in the assets of its deposits; more there than the deposits explain (a transfer not recorded) or
 * less (value gone without a sweep) is a difference. The chain is read where the ledger is (`readPoints`, see
 * `finalReadPoints`: the network's newest final block, the one the collector's check reads too when given the same
 * `readPoints`, or the commitment on Solana), so a deposit or a sweep mined but not final yet shows on neither side;
 * what can still differ for a moment is one final that the network's deposit follower, or the follower of the sweep,
 * has not recorded yet.
 */
export async function auditDepositAddresses(
  audited: AuditedLedger,
  chains: ChainRegistry,
  readBalances: EvmBalanceReader,
  readPoints: ChainReadPoints,
  readSolanaBalances?: SolanaBalanceReader,
): Promise<DepositAddressesCheck[]> {
  const { depositAddresses: ledger, unswept: holding } = audited;
  const held = new Map<string, { amount: bigint; at: ChainReadPoint }>();
  for (const network of chains.networks) {
    const here = holding.filter((row) => row.chain === network.caip2);
    const tokens = network.tokens.filter((token) => here.some((row) => row.asset === token.caip19));
    if (!tokens.length) continue;
    const at = await readPoints(network);
    const owners = [...new Set(here.map((row) => row.address))];
    if (!('block' in at) && !readSolanaBalances)
      throw new Error(`the x402 token accounts on ${network.caip2} are read with a Solana balance reader`);
    const balances =
      'block' in at
        ? await readBalances(network, owners, tokens, at.block)
        : await (readSolanaBalances as SolanaBalanceReader)(network, owners, tokens, at.commitment);
    for (const row of here) {
      const token = tokens.find((candidate) => candidate.caip19 === row.asset) as TokenInfo;
      const amount = (held.get(token.caip19)?.amount ?? 0n) + balances.of(row.address, token);
      held.set(token.caip19, { amount, at });
    }
  }
  const assets = [...new Set([...ledger.keys(), ...held.keys()])].sort();
  return assets.flatMap((asset) => {
    const onChain = held.get(asset);
    const amount = onChain?.amount ?? 0n;
    const recorded = ledger.get(asset) ?? 0n;
    if (amount === 0n && recorded === 0n) return [];
    return [
      {
        asset,
        chain: amount.toString(),
        ledger: recorded.toString(),
        difference: (amount - recorded).toString(),
        ...(onChain ? { readAt: readAtOf(onChain.at) } : {}),
      },
    ];
  });
}
