import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { parseChainId } from '../chains/caip.ts';
import type { PayoutSender } from '../payouts/payout.ts';
import type { ChainRegistry } from '../chains/registry.ts';

/** One merchant's balance in one asset, as the ledger has it and as the payments, refunds and settlements add up. */
export interface MerchantBalanceCheck {
  merchantId: string;
  asset: string;
  /** Minor units the merchant is owed, per the ledger. */
  ledger: string;
  /** The same from the records: succeeded payments not settled, less on-chain refunds not deducted yet. */
  records: string;
  difference: string;
}

/**
 * What each merchant is owed in each asset, from the ledger and from the records it was written beside; a
 * difference means a state change without its entry, or a record changed afterwards.
 */
export async function auditMerchantBalances(db: Db): Promise<MerchantBalanceCheck[]> {
  const { rows } = await sql<MerchantBalanceCheck>`
    WITH ledger AS (
      SELECT substring(account FROM 10) AS merchant_id, asset, -sum(amount) AS amount
      FROM ledger_entries WHERE account LIKE 'merchant:%' GROUP BY 1, 2
    ), records AS (
      SELECT merchant_id, asset, sum(amount) AS amount FROM (
        SELECT merchant_id, token_asset AS asset, settlement_amount::numeric AS amount FROM payments
        WHERE status = 'succeeded' AND settled_at IS NULL AND token_asset IS NOT NULL AND settlement_amount IS NOT NULL
        UNION ALL
        SELECT merchant_id, token_asset, -token_value FROM refunds
        WHERE method = 'onchain' AND status = 'succeeded' AND exception_id IS NULL AND token_asset IS NOT NULL
        UNION ALL
        SELECT merchant_id, asset, refunds_deducted FROM settlement_batches WHERE status = 'confirmed'
      ) parts GROUP BY 1, 2
    )
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

/** What buyers of a merchant's payments are owed in one asset, as the ledger has it and as their exceptions add up. */
export interface BuyersBalanceCheck {
  merchantId: string;
  asset: string;
  ledger: string;
  /** Payment exceptions neither accepted by the merchant nor sent back by a refund that succeeded. */
  records: string;
  difference: string;
}

/**
 * What buyers are owed per merchant and asset: a transfer that did not simply pay its payment is an exception until
 * it is sent back or accepted, and the ledger's `buyers:<merchant id>` account holds the same.
 */
export async function auditBuyersBalances(db: Db): Promise<BuyersBalanceCheck[]> {
  const { rows } = await sql<BuyersBalanceCheck>`
    WITH ledger AS (
      SELECT substring(account FROM 8) AS merchant_id, asset, -sum(amount) AS amount
      FROM ledger_entries WHERE account LIKE 'buyers:%' GROUP BY 1, 2
    ), records AS (
      SELECT payments.merchant_id, exception ->> 'asset' AS asset, sum((exception ->> 'amount')::numeric) AS amount
      FROM payments CROSS JOIN LATERAL jsonb_array_elements(payments.exceptions) AS exception
      WHERE jsonb_array_length(payments.exceptions) > 0
        AND exception ->> 'acceptedAt' IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM refunds WHERE refunds.exception_id = exception ->> 'id' AND refunds.status = 'succeeded'
        )
      GROUP BY 1, 2
    )
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

/** What the collector holds of one asset on its network, on the chain and per the ledger. */
export interface CollectorBalanceCheck {
  asset: string;
  chain: string;
  ledger: string;
  difference: string;
}

/**
 * The collector's balance of every token this process can pay out, on the chain now against the ledger's
 * `collector` account: what buyers paid in, sweeps, payouts, network fees and the operator's recorded funding. The
 * native coin of Solana is left out, its fees and rent not being in the ledger yet. Read while transfers are in
 * flight (mined, not final), the two may differ for a moment.
 */
export async function auditCollector(
  db: Db,
  chains: ChainRegistry,
  senders: Record<string, PayoutSender>,
): Promise<CollectorBalanceCheck[]> {
  const ledger = new Map(
    (
      await db
        .selectFrom('ledger_entries')
        .select(['asset', sql<string>`sum(amount)::text`.as('amount')])
        .where('account', '=', 'collector')
        .groupBy('asset')
        .execute()
    ).map((row) => [row.asset, BigInt(row.amount)]),
  );
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

/** What the collector holds now of every token the ledger follows (Solana's native coin not yet), by CAIP-19 id. */
export async function collectorHoldings(
  chains: ChainRegistry,
  senders: Record<string, PayoutSender>,
): Promise<Map<string, bigint>> {
  const holdings = new Map<string, bigint>();
  for (const network of chains.networks) {
    const sender = senders[parseChainId(network.caip2)?.namespace ?? ''];
    for (const token of network.tokens) {
      if (!sender?.canSend(token) || (network.namespace === 'solana' && token.method === 'native')) continue;
      holdings.set(token.caip19, await sender.collectorHolds(token));
    }
  }
  return holdings;
}
