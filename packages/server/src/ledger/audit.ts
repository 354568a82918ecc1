import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { parseChainId } from '../chains/caip.ts';
import type { PayoutSender } from '../payouts/payout.ts';
import type { ChainRegistry, NetworkInfo, TokenInfo } from '../chains/registry.ts';
import type { AmountsByAccount } from '../chains/evm/balances.ts';
import { withDepositTables } from '../deposits/depositTables.ts';

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
 * What each merchant is owed in each asset: its succeeded payments not settled, less its on-chain refunds that
 * settlements have not deducted yet.
 */
export function auditMerchantBalances(db: Db): Promise<OwedBalanceCheck[]> {
  return compareOwed(
    db,
    'merchant:',
    sql`
      SELECT merchant_id, asset, sum(amount) AS amount FROM (
        SELECT merchant_id, token_asset AS asset, settlement_amount::numeric AS amount FROM payments
        WHERE status = 'succeeded' AND settled_at IS NULL AND token_asset IS NOT NULL AND settlement_amount IS NOT NULL
        UNION ALL
        SELECT merchant_id, token_asset, -token_value FROM refunds
        WHERE method = 'onchain' AND status = 'succeeded' AND exception_id IS NULL AND token_asset IS NOT NULL
        UNION ALL
        SELECT merchant_id, asset, refunds_deducted FROM settlement_batches WHERE status = 'confirmed'
      ) parts GROUP BY 1, 2`,
  );
}

/**
 * What the buyers of each merchant's payments are owed per asset: a transfer that did not simply pay its payment
 * is an exception until it is sent back by a refund that succeeded, or accepted by the merchant.
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
          SELECT 1 FROM refunds WHERE refunds.exception_id = exception ->> 'id' AND refunds.status = 'succeeded'
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

/** What the collector holds of one asset on its network, on the chain and per the ledger. */
export interface CollectorBalanceCheck {
  asset: string;
  chain: string;
  ledger: string;
  difference: string;
}

/**
 * The collector's balance of every token and native coin it holds, on the chain now against the ledger's
 * `collector` account: what buyers paid in, sweeps, payouts, network fees (rent included on Solana) and the
 * operator's recorded funding. Read while transfers are in flight (mined, not final), the two may differ for a
 * moment.
 */
export async function auditCollector(
  db: Db,
  chains: ChainRegistry,
  senders: Record<string, PayoutSender>,
): Promise<CollectorBalanceCheck[]> {
  const ledger = await ledgerBalances(db, 'collector');
  const checks: CollectorBalanceCheck[] = [];
  for (const [asset, held] of await collectorHoldings(chains, senders)) {
    const recorded = ledger.get(asset) ?? 0n;
    if (held === 0n && recorded === 0n) continue;
    checks.push({
      asset,
      chain: held.toString(),
      ledger: recorded.toString(),
      difference: (held - recorded).toString(),
    });
  }
  return checks;
}

/** What the collector holds now of every token and native coin of the configured networks, by CAIP-19 id. */
export async function collectorHoldings(
  chains: ChainRegistry,
  senders: Record<string, PayoutSender>,
): Promise<Map<string, bigint>> {
  const holdings = new Map<string, bigint>();
  for (const network of chains.networks) {
    const sender = senders[parseChainId(network.caip2)?.namespace ?? ''];
    if (!sender) continue;
    const tokens = network.tokens.filter((token) => sender.canSend(token) || token.method === 'native');
    // A network's reads go out together (one JSON-RPC batch on EVM).
    const held = await Promise.all(tokens.map((token) => sender.collectorHolds(token)));
    for (const [index, token] of tokens.entries()) holdings.set(token.caip19, held[index] as bigint);
  }
  return holdings;
}

/** What the deposit addresses of one asset hold, on the chain and per the ledger. */
export interface DepositAddressesCheck {
  asset: string;
  chain: string;
  ledger: string;
  difference: string;
}

/** Reads what `owners` hold of `tokens` on an EVM network, in one round trip. */
export type EvmBalanceReader = (
  network: NetworkInfo,
  owners: string[],
  tokens: TokenInfo[],
) => Promise<AmountsByAccount>;

/**
 * What the deposit addresses hold of every listed token and native coin, on the chain now against the ledger's
 * `deposit_addresses` account: the deposits recorded and not swept yet. The addresses read are those holding such
 * deposits, each in the assets of its deposits; more there than the deposits explain (a transfer not recorded) or
 * less (value gone without a sweep) is a difference. Read while a sweep is in flight, the two may differ for a moment.
 */
export async function auditDepositAddresses(
  db: Db,
  chains: ChainRegistry,
  readBalances: EvmBalanceReader,
): Promise<DepositAddressesCheck[]> {
  const ledger = await ledgerBalances(db, 'deposit_addresses');
  const holding = await withDepositTables(db)
    .selectFrom('evm_deposits')
    .select(['chain', 'address', 'asset'])
    .distinct()
    .where('swept_by', 'is', null)
    .where('asset', 'is not', null)
    .execute();
  const held = new Map<string, bigint>();
  for (const network of chains.networks) {
    const here = holding.filter((row) => row.chain === network.caip2);
    const tokens = network.tokens.filter((token) => here.some((row) => row.asset === token.caip19));
    if (!tokens.length) continue;
    const balances = await readBalances(network, [...new Set(here.map((row) => row.address))], tokens);
    for (const row of here) {
      const token = tokens.find((candidate) => candidate.caip19 === row.asset) as TokenInfo;
      held.set(token.caip19, (held.get(token.caip19) ?? 0n) + balances.of(row.address, token));
    }
  }
  const assets = [...new Set([...ledger.keys(), ...held.keys()])].sort();
  return assets.flatMap((asset) => {
    const onChain = held.get(asset) ?? 0n;
    const recorded = ledger.get(asset) ?? 0n;
    if (onChain === 0n && recorded === 0n) return [];
    return [
      { asset, chain: onChain.toString(), ledger: recorded.toString(), difference: (onChain - recorded).toString() },
    ];
  });
}
