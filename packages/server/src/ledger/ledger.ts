import { type Selectable, sql, type Transaction } from 'kysely';
import type { Database, PaymentsTable, RefundsTable } from '../db/schema.ts';

/**
 * The ledger's accounts. Assets (a debit balance): `collector` (tokens the collector's accounts hold) and
 * `deposit_addresses` (tokens at payments' deposit addresses, not swept yet). Owed or earned (a credit balance):
 * `merchant:<id>` (what a merchant is owed), `buyers:<merchant id>` (what buyers sent towards the merchant's
 * payments that no payment took yet: a deposit or Solana Pay transfer until its payment succeeds with it, and every
 * payment exception until it is sent back or accepted), `fees` (the service's fees), `opening_balances` (what was owed when the ledger began). Spent: `network_fees`
 * (what the collector paid networks for its transactions, in their native coin). `operator`: what the operator
 * put into the collector from outside (or took out), recorded with `paygate ledger fund`. `unattributed:<merchant
 * id>`: value that reached the collector for a merchant's payment with no record to hold it (a gateway transfer
 * that landed after its payment was final, a token an operator's recovery swept without a recorded transfer); the
 * audit shows it until the operator settles it.
 */
export const COLLECTOR = 'collector';
export const DEPOSIT_ADDRESSES = 'deposit_addresses';
export const FEES = 'fees';
export const NETWORK_FEES = 'network_fees';
export const OPERATOR = 'operator';
export const merchantAccount = (merchantId: string) => `merchant:${merchantId}`;
export const buyersAccount = (merchantId: string) => `buyers:${merchantId}`;
export const unattributedAccount = (merchantId: string) => `unattributed:${merchantId}`;

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
 * A buyer's transfer of a listed token reached the service outside the gateway (a deposit address, or the
 * collector by Solana Pay): it is held, and owed to the buyer until a payment succeeds with it. `entry` names the
 * transfer (one entry each).
 */
export function postTransferReceived(
  trx: Transaction<Database>,
  entry: string,
  transfer: {
    heldBy: typeof COLLECTOR | typeof DEPOSIT_ADDRESSES;
    merchantId: string;
    asset: string;
    amount: bigint;
  },
) {
  return postLedgerEntry(trx, entry, [
    { account: transfer.heldBy, asset: transfer.asset, amount: transfer.amount },
    { account: buyersAccount(transfer.merchantId), asset: transfer.asset, amount: -transfer.amount },
  ]);
}

/**
 * A payment succeeded: the merchant is owed what the buyer paid less the fee, and the fee is the service's. Paid by
 * a transfer received before (`postTransferReceived`: its transaction is the payment's), it comes out of what
 * buyers are owed; paid through the gateway, the collector received it now.
 */
export async function postPaymentReceived(trx: Transaction<Database>, payment: Selectable<PaymentsTable>) {
  if (!payment.token_asset || payment.token_value === null || payment.fee_total === null) return;
  const { rows } = await sql<{ received: boolean }>`
    SELECT EXISTS (SELECT 1 FROM evm_deposits WHERE payment_id = ${payment.id} AND tx_hash = ${payment.tx_hash})
        OR EXISTS (SELECT 1 FROM solana_pay_transfers WHERE payment_id = ${payment.id} AND signature = ${payment.tx_hash})
      AS received
  `.execute(trx);
  const asset = payment.token_asset;
  await postLedgerEntry(trx, `payment:${payment.id}`, [
    {
      account: rows[0]?.received ? buyersAccount(payment.merchant_id) : COLLECTOR,
      asset,
      amount: BigInt(payment.token_value),
    },
    { account: merchantAccount(payment.merchant_id), asset, amount: -BigInt(payment.settlement_amount ?? '0') },
    { account: FEES, asset, amount: -BigInt(payment.fee_total) },
  ]);
}

/** Deposits swept: what each held at its deposit address is the collector's now. One entry per deposit. */
export async function postDepositsSwept(
  trx: Transaction<Database>,
  deposits: readonly { chain: string; tx_hash: string; log_index: number; asset: string | null; amount: string }[],
) {
  for (const deposit of deposits) {
    if (!deposit.asset) continue;
    const amount = BigInt(deposit.amount);
    await postLedgerEntry(trx, `swept:${deposit.chain}:${deposit.tx_hash}:${deposit.log_index}`, [
      { account: COLLECTOR, asset: deposit.asset, amount },
      { account: DEPOSIT_ADDRESSES, asset: deposit.asset, amount: -amount },
    ]);
  }
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

/**
 * An on-chain refund is final: the collector paid the buyer back, from what the merchant is owed, or for a payment
 * exception from what the buyer was owed.
 */
export function postRefundSent(trx: Transaction<Database>, refund: Selectable<RefundsTable>) {
  if (refund.method !== 'onchain' || !refund.token_asset || !refund.token_value) return Promise.resolve();
  const amount = BigInt(refund.token_value);
  return postLedgerEntry(trx, `refund:${refund.id}`, [
    {
      account: (refund.exception_id === null ? merchantAccount : buyersAccount)(refund.merchant_id),
      asset: refund.token_asset,
      amount,
    },
    { account: COLLECTOR, asset: refund.token_asset, amount: -amount },
  ]);
}

/** The collector paid a network for one of its transactions (gas, an L2's data fee), in the native coin. */
export function postNetworkFee(trx: Transaction<Database>, entry: string, nativeAsset: string, amount: bigint) {
  return postLedgerEntry(trx, entry, [
    { account: NETWORK_FEES, asset: nativeAsset, amount },
    { account: COLLECTOR, asset: nativeAsset, amount: -amount },
  ]);
}

/** The operator moved value into the collector from outside (a negative amount: took it out). */
export function postFunding(trx: Transaction<Database>, entry: string, asset: string, amount: bigint) {
  return postLedgerEntry(trx, entry, [
    { account: COLLECTOR, asset, amount },
    { account: OPERATOR, asset, amount: -amount },
  ]);
}

/** Value reached the collector for a merchant's payment with no record to hold it: owed, to be looked into. */
export function postUnattributed(
  trx: Transaction<Database>,
  entry: string,
  received: { merchantId: string; asset: string; amount: bigint },
) {
  return postLedgerEntry(trx, entry, [
    { account: COLLECTOR, asset: received.asset, amount: received.amount },
    { account: unattributedAccount(received.merchantId), asset: received.asset, amount: -received.amount },
  ]);
}
