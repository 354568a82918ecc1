import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, PaymentsTable, RefundsTable } from '../db/schema.ts';

/**
 * The ledger's accounts. Assets (a debit balance): `collector` (tokens the collector's accounts hold) and
 * `deposit_addresses` (tokens at payments' deposit addresses, not swept yet). Owed or earned (a credit balance):
 * `merchant:<id>` (what a merchant is owed), `buyers:<merchant id>` (what buyers sent towards the merchant's
 * payments that no payment took yet: a deposit or Solana Pay transfer until its payment succeeds with it, and every
 * payment exception until it is sent back or accepted), `fees` (the service's fees), `opening_balances` (what was
 * owed when the ledger began). `operator`: what the operator put into the collector from outside (or took out),
 * recorded with `paygate ledger fund`, less the network fees it paid (below). `unattributed:<merchant id>`: value
 * that reached the collector for a merchant's payment with no record to hold it (a gateway transfer that landed late
 * for a payment with no known buyer, a token an operator's recovery swept without a recorded transfer); the audit
 * shows it until the operator settles it. `payouts_in_flight`: transfers out of the collector decided and not final
 * yet; their owners' accounts paid them when they were decided (`postPayoutDecided`). `unsolicited`: value sent
 * to the collector that no record of the service holds (no payment, sweep, settle or funding), owed to its sender
 * until the operator keeps it as funding.
 *
 * The accounts the collector owes (merchants, buyers, fees, operator, unattributed, unsolicited) never go below zero: every
 * transfer out is taken from its owner's account, and refused when that account holds too little.
 *
 * Network fees (gas, an L2's data fee, Solana's signature fees and the rent of accounts a transaction creates) are
 * the operator's cost, paid in the network's native coin out of `operator`, never out of what tenants are owed in
 * that coin. A fee is a payout of the operator's to the network, with `network_fees` in the part
 * `payouts_in_flight` plays for other payouts; each transaction from the collector has three entries:
 * - `network_fee:<transaction>:reserved`, when it is journaled: the most it can cost moves from `operator` to
 *   `network_fees` (`reserveNetworkFee`), refused with `NetworkFeeShortfallError` when the operator holds less;
 * - `network_fee:<transaction>`, when it is final: the fee it cost leaves `collector` out of `network_fees` (the
 *   spend: these lines are the record of what each transaction cost);
 * - `network_fee:<transaction>:settled`, in the same database transaction: what was reserved and not spent goes
 *   back to `operator`, or what the fee cost beyond the reservation is taken from it.
 * So `operator` pays each fee in full, `collector` loses it, and `network_fees` holds what is reserved for
 * transactions not final yet. The fee is reserved when the transaction is journaled, under the operator account's
 * lock, rather than only checked then: a fee is known only once final, so a check alone would let two transactions
 * journaled before either is final pass on the same balance; each reservation is read by the next.
 */
export const COLLECTOR = 'collector';
export const DEPOSIT_ADDRESSES = 'deposit_addresses';
export const FEES = 'fees';
export const NETWORK_FEES = 'network_fees';
export const OPERATOR = 'operator';
export const PAYOUTS_IN_FLIGHT = 'payouts_in_flight';
export const UNSOLICITED = 'unsolicited';
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
 * a transfer received before (`postTransferReceived`: its transaction is the payment's, or a late transfer the
 * merchant accepted), it comes out of what buyers are owed; paid through the gateway, the collector received it now.
 */
export async function postPaymentReceived(trx: Transaction<Database>, payment: Selectable<PaymentsTable>) {
  if (!payment.token_asset || payment.token_value === null || payment.fee_total === null) return;
  const { rows } = await sql<{ received: boolean }>`
    SELECT EXISTS (SELECT 1 FROM evm_deposits WHERE payment_id = ${payment.id} AND tx_hash = ${payment.tx_hash})
        OR EXISTS (SELECT 1 FROM solana_pay_transfers WHERE payment_id = ${payment.id} AND signature = ${payment.tx_hash})
      AS received
  `.execute(trx);
  const asset = payment.token_asset;
  // A late transfer accepted as the payment was held for its buyer when it landed, whichever way it came.
  const acceptedLate = payment.exceptions.some(
    (exception) => exception.acceptedAt !== undefined && exception.txHash === payment.tx_hash,
  );
  await postLedgerEntry(trx, `payment:${payment.id}`, [
    {
      account: rows[0]?.received || acceptedLate ? buyersAccount(payment.merchant_id) : COLLECTOR,
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

/**
 * What `account` holds for its owner in `asset`, in minor units: the credit balance of an account the collector owes
 * (a merchant, its buyers, the fees, the operator). Read after `lockOwnerAccount` it is exact until the caller's
 * transaction ends.
 */
export async function ownerBalance(db: Kysely<Database>, account: string, asset: string): Promise<bigint> {
  const { balance } = await db
    .selectFrom('ledger_entries')
    .select(sql<string>`(-coalesce(sum(amount), 0))::text`.as('balance'))
    .where('account', '=', account)
    .where('asset', '=', asset)
    .executeTakeFirstOrThrow();
  return BigInt(balance);
}

/**
 * Takes the owner account's lock until the caller's transaction ends: every payout out of one account's asset is
 * decided one at a time, each reading the balance the one before it left.
 */
async function lockOwnerAccount(trx: Transaction<Database>, account: string, asset: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`ledger:${account}:${asset}`}))`.execute(trx);
}

/**
 * Takes the owner account's lock, then refuses with `InsufficientBalanceError` when it holds less than `amount`: what
 * it holds stays so until the caller's transaction ends.
 */
async function requireOwnerHolds(trx: Transaction<Database>, taken: PayoutDebit): Promise<void> {
  await lockOwnerAccount(trx, taken.owner, taken.asset);
  const balance = await ownerBalance(trx, taken.owner, taken.asset);
  if (balance < taken.amount) throw new InsufficientBalanceError(taken.owner, taken.asset, balance, taken.amount);
}

/** A payout would take an owner's account below zero: it is refused, and nothing is written. */
export class InsufficientBalanceError extends Error {
  constructor(
    readonly account: string,
    readonly asset: string,
    readonly balance: bigint,
    readonly needed: bigint,
  ) {
    super(`${account} holds ${balance} of ${asset}, less than the ${needed} asked`);
    this.name = 'InsufficientBalanceError';
  }

  get shortfall(): bigint {
    return this.needed - this.balance;
  }
}

/** One transfer out of the collector: whose account pays it, in which asset, how much. */
export interface PayoutDebit {
  owner: string;
  asset: string;
  amount: bigint;
}

/**
 * A transfer out of the collector is decided (a settlement batch claimed, an on-chain refund made): its owner's
 * account pays it now, into `payouts_in_flight` until the transfer is final or fails. Refused with
 * `InsufficientBalanceError` when the owner's account would go below zero, so no tenant's payout is ever paid with
 * another's money, whatever the collector holds in all. `entry` names the payout.
 */
export async function postPayoutDecided(trx: Transaction<Database>, entry: string, payout: PayoutDebit) {
  await requireOwnerHolds(trx, payout);
  await postLedgerEntry(trx, entry, [
    { account: payout.owner, asset: payout.asset, amount: payout.amount },
    { account: PAYOUTS_IN_FLIGHT, asset: payout.asset, amount: -payout.amount },
  ]);
}

/** A payout's transfer is final: the collector paid it. `entry` names the transfer. */
export function postPayoutSent(trx: Transaction<Database>, entry: string, payout: Omit<PayoutDebit, 'owner'>) {
  return postLedgerEntry(trx, entry, [
    { account: PAYOUTS_IN_FLIGHT, asset: payout.asset, amount: payout.amount },
    { account: COLLECTOR, asset: payout.asset, amount: -payout.amount },
  ]);
}

/** A payout's transfer failed: nothing left the collector, and its owner holds the amount again. */
export function postPayoutVoided(trx: Transaction<Database>, entry: string, payout: PayoutDebit) {
  return postLedgerEntry(trx, entry, [
    { account: PAYOUTS_IN_FLIGHT, asset: payout.asset, amount: payout.amount },
    { account: payout.owner, asset: payout.asset, amount: -payout.amount },
  ]);
}

/** Who pays an on-chain refund: the merchant, or for a payment exception the buyers it was held for. */
export function refundOwner(refund: Pick<Selectable<RefundsTable>, 'merchant_id' | 'exception_id'>): string {
  return (refund.exception_id === null ? merchantAccount : buyersAccount)(refund.merchant_id);
}

/**
 * The operator holds less of a network's native coin than a transaction from the collector may cost in network
 * fees: the transaction is not journaled (a payout waits for its worker's next round, a buyer's payment is refused
 * or retried), so no tenant's coin pays for it. `held` is what the operator's account holds, less what is reserved
 * for transactions not final yet.
 */
export class NetworkFeeShortfallError extends Error {
  override readonly name = 'NetworkFeeShortfallError';

  constructor(
    readonly asset: string,
    readonly held: bigint,
    readonly needed: bigint,
  ) {
    super(
      `the operator holds ${held} of ${asset} for network fees, less than the ${needed} a transaction may cost (${needed - held} short): fund it with paygate ledger fund`,
    );
  }

  get shortfall(): bigint {
    return this.needed - this.held;
  }
}

/** Refusals of `requireFeeCovered` in this process, per native asset: what `paygate_network_fee_refusals_total` counts. */
const feeRefusals = new Map<string, number>();

/** How many transactions this process refused for want of the operator's funding, per native asset (CAIP-19). */
export function networkFeeRefusals(): ReadonlyMap<string, number> {
  return feeRefusals;
}

/** Refuses with `NetworkFeeShortfallError` when `held` of the operator's native coin does not cover `needed`. */
export function requireFeeCovered(asset: string, held: bigint, needed: bigint): void {
  if (held >= needed) return;
  feeRefusals.set(asset, (feeRefusals.get(asset) ?? 0) + 1);
  throw new NetworkFeeShortfallError(asset, held, needed);
}

/**
 * Whether the operator's funding covers a transaction that may cost up to `maxFee` of the native coin now, for a
 * check before any transaction is journaled (a buyer's confirm): refused with `NetworkFeeShortfallError`. Nothing is
 * locked or written; the transaction's journaling reserves the fee (`reserveNetworkFee`) and may still be refused.
 */
export async function requireNetworkFeeFunded(db: Kysely<Database>, nativeAsset: string, maxFee: bigint) {
  requireFeeCovered(nativeAsset, await ownerBalance(db, OPERATOR, nativeAsset), maxFee);
}

/**
 * The operator's funding of a network's native coin, for reserving network fees: its account's lock is taken until
 * the caller's transaction ends, so concurrent transactions journaled in any process reserve one after another, each
 * reading what the one before left.
 */
export async function lockedOperatorFunding(trx: Transaction<Database>, nativeAsset: string): Promise<bigint> {
  await lockOwnerAccount(trx, OPERATOR, nativeAsset);
  return ownerBalance(trx, OPERATOR, nativeAsset);
}

/**
 * A transaction from the collector is journaled: the most it can cost in network fees (`maxFee`) is taken from the
 * operator's funding of the native coin and held in `network_fees` until it is final (`postNetworkFee`). The caller
 * read `held` with `lockedOperatorFunding` in the same transaction (less what it reserved since), and the
 * reservation is refused with `NetworkFeeShortfallError` when that is less than `maxFee`. `entry` names the fee as
 * `postNetworkFee` will (`network_fee:<transaction>`). Returns what the operator holds after it.
 */
export async function reserveNetworkFee(
  trx: Transaction<Database>,
  entry: string,
  fee: { nativeAsset: string; maxFee: bigint; held: bigint },
): Promise<bigint> {
  requireFeeCovered(fee.nativeAsset, fee.held, fee.maxFee);
  await postLedgerEntry(trx, `${entry}:reserved`, [
    { account: OPERATOR, asset: fee.nativeAsset, amount: fee.maxFee },
    { account: NETWORK_FEES, asset: fee.nativeAsset, amount: -fee.maxFee },
  ]);
  return fee.held - fee.maxFee;
}

/**
 * A transaction from the collector is final (landed, failed or never sent): the network took `fee` of the native
 * coin from the collector (zero for one that never landed), paid out of what was reserved for it when it was
 * journaled; the rest goes back to the operator, or what the fee cost beyond the reservation (a fee-bumped
 * replacement, an L2's data fee, a transaction journaled before fees were reserved) is taken from the operator.
 * `entry` names the fee (`network_fee:<transaction>`).
 */
export async function postNetworkFee(trx: Transaction<Database>, entry: string, nativeAsset: string, fee: bigint) {
  const { reserved } = await trx
    .selectFrom('ledger_entries')
    .select(sql<string>`coalesce(sum(amount), 0)::text`.as('reserved'))
    .where('entry', '=', `${entry}:reserved`)
    .where('account', '=', OPERATOR)
    .where('asset', '=', nativeAsset)
    .executeTakeFirstOrThrow();
  const unspent = BigInt(reserved) - fee;
  await postLedgerEntry(trx, entry, [
    { account: NETWORK_FEES, asset: nativeAsset, amount: fee },
    { account: COLLECTOR, asset: nativeAsset, amount: -fee },
  ]);
  await postLedgerEntry(trx, `${entry}:settled`, [
    { account: NETWORK_FEES, asset: nativeAsset, amount: unspent },
    { account: OPERATOR, asset: nativeAsset, amount: -unspent },
  ]);
}

/**
 * The operator moved value into the collector from outside, or took it out (a negative amount) of what `account`
 * (the operator's own funding, or the fees the service earned) holds: never more than that.
 */
export async function postFunding(
  trx: Transaction<Database>,
  entry: string,
  asset: string,
  amount: bigint,
  account: typeof OPERATOR | typeof FEES = OPERATOR,
) {
  if (amount < 0n) await requireOwnerHolds(trx, { owner: account, asset, amount: -amount });
  await postLedgerEntry(trx, entry, [
    { account: COLLECTOR, asset, amount },
    { account, asset, amount: -amount },
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
