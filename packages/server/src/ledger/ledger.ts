import { type Selectable, sql, type Transaction } from 'kysely';
import type { Database, PaymentsTable, RefundsTable } from '../db/schema.ts';

/**
 * The ledger's accounts. Assets (a debit balance): `collector` (tokens the collector's accounts hold) and
 * `deposit_addresses` (tokens at payments' deposit addresses, not swept yet). Owed or earned (a credit balance):
 * `merchant:<id>` (what a merchant is owed), `fees` (the service's fees), `opening_balances` (what was owed when the
 * ledger began).
 */
export const COLLECTOR = 'collector';
export const DEPOSIT_ADDRESSES = 'deposit_addresses';
export const FEES = 'fees';
export const merchantAccount = (merchantId: string) => `merchant:${merchantId}`;

/** One account's change in one asset: a debit above zero, a credit below. */
export interface LedgerLine {
  account: string;
  asset: string;
  amount: bigint;
}

/**
 * Writes one balanced entry in the caller's transaction, so it stands or falls with the change it records; an entry
 * written already (the same `entry`) is left as it is. Lines of zero are left out. The database checks the balance
 * again at commit.
 */
export async function postLedgerEntry(
  trx: Transaction<Database>,
  entry: string,
  lines: readonly LedgerLine[],
): Promise<void> {
  const written = lines.filter((line) => line.amount !== 0n);
  const byAsset = new Map<string, bigint>();
  for (const line of written) byAsset.set(line.asset, (byAsset.get(line.asset) ?? 0n) + line.amount);
  for (const [asset, sum] of byAsset) {
    if (sum !== 0n) throw new Error(`ledger entry ${entry} does not balance in ${asset}: ${sum}`);
  }
  if (!written.length) return;
  await trx
    .insertInto('ledger_entries')
    .values(written.map((line) => ({ entry, account: line.account, asset: line.asset, amount: line.amount })))
    .onConflict((conflict) => conflict.columns(['entry', 'account', 'asset']).doNothing())
    .execute();
}

/**
 * A payment succeeded: what the buyer paid is held (at the payment's deposit address when a transfer there paid
 * it, by the collector otherwise), the merchant is owed it less the fee, and the fee is the service's.
 */
export async function postPaymentReceived(trx: Transaction<Database>, payment: Selectable<PaymentsTable>) {
  if (!payment.token_asset || payment.token_value === null || payment.fee_total === null) return;
  const atDepositAddress = await sql<{ found: boolean }>`
    SELECT EXISTS (SELECT 1 FROM evm_deposits WHERE payment_id = ${payment.id} AND tx_hash = ${payment.tx_hash}) AS found
  `.execute(trx);
  const asset = payment.token_asset;
  await postLedgerEntry(trx, `payment:${payment.id}`, [
    {
      account: atDepositAddress.rows[0]?.found ? DEPOSIT_ADDRESSES : COLLECTOR,
      asset,
      amount: BigInt(payment.token_value),
    },
    { account: merchantAccount(payment.merchant_id), asset, amount: -BigInt(payment.settlement_amount ?? '0') },
    { account: FEES, asset, amount: -BigInt(payment.fee_total) },
  ]);
}

/** A settlement batch's transfer is final: the collector paid the merchant what the batch sent. */
export function postSettlementSent(
  trx: Transaction<Database>,
  batch: { id: string; merchant_id: string; asset: string; amount: string },
) {
  const amount = BigInt(batch.amount);
  return postLedgerEntry(trx, `settlement:${batch.id}`, [
    { account: merchantAccount(batch.merchant_id), asset: batch.asset, amount },
    { account: COLLECTOR, asset: batch.asset, amount: -amount },
  ]);
}

/** A merchant's on-chain refund is final: the collector paid the buyer back from what the merchant is owed. */
export function postRefundSent(trx: Transaction<Database>, refund: Selectable<RefundsTable>) {
  if (refund.method !== 'onchain' || refund.exception_id !== null || !refund.token_asset || !refund.token_value) {
    return Promise.resolve();
  }
  const amount = BigInt(refund.token_value);
  return postLedgerEntry(trx, `refund:${refund.id}`, [
    { account: merchantAccount(refund.merchant_id), asset: refund.token_asset, amount },
    { account: COLLECTOR, asset: refund.token_asset, amount: -amount },
  ]);
}
