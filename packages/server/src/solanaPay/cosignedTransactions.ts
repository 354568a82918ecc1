import { sql } from 'kysely';
import { withSolanaPayTables } from '../chains/solana/solanaPayTables.ts';
import type { Db } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import { lockedOperatorFunding, reserveNetworkFee } from '../ledger/ledger.ts';

/** How many transactions the collector signed for one payment may be able to land at once. */
export const COSIGNED_PER_PAYMENT = 3;
/** How many transactions the collector signed for one paying account, across payments, may be able to land at once. */
export const COSIGNED_PER_ACCOUNT = 3;

export interface CosignedTransaction {
  /** The collector's signature: the transaction's id. */
  signature: string;
  network: string;
  reference: string;
  paymentId: string;
  /** The account the transaction pays from. */
  account: string;
  lastValidBlockHeight: bigint;
  /** The most it can cost the collector, its fee payer (`maxNetworkFeeOf`), in lamports. */
  maxNetworkFee: bigint;
}

/** Where the network is: its block height now and how long a block takes, to tell when a transaction expires. */
export interface NetworkPace {
  blockHeight: bigint;
  blockTimeMs: number;
}

/**
 * Records a transaction the collector signed as fee payer, before it is handed out; refused (429
 * `transaction_request_limit`) while its payment or its account already has as many as allowed that can still land.
 * Every one of them could land and fail, the collector paying each fee, until the block height passes its
 * blockhash's last valid one, so that is how long it counts. The locks make concurrent requests in every process
 * count one after another; each takes its payment's, then its account's, so they cannot deadlock.
 *
 * Its fee is the operator's cost (`ledger.ts`): the most it can cost is reserved out of the operator's funding of SOL
 * in the same transaction (`reserveNetworkFee`, under the operator account's lock that journaling the collector's
 * own transactions takes too), refused with `NetworkFeeShortfallError` when the operator holds less. The network's
 * Solana Pay follower enters what it cost once it lands, or nothing once it can no longer land.
 */
export async function recordCosignedTransaction(
  db: Db,
  transaction: CosignedTransaction,
  pace: NetworkPace,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`solana_pay_cosigned:payment:${transaction.paymentId}`}))`.execute(
      trx,
    );
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`solana_pay_cosigned:account:${transaction.account}`}))`.execute(
      trx,
    );
    const tables = withSolanaPayTables(trx);
    /** With `limit` transactions for it that can still land, the last valid block height of the first to expire. */
    const fullUntil = async (column: 'payment_id' | 'account', value: string, limit: number) => {
      const unexpired = await tables
        .selectFrom('solana_pay_cosigned_transactions')
        .select('last_valid_block_height')
        .where('network', '=', transaction.network)
        .where(column, '=', value)
        .where('last_valid_block_height', '>=', pace.blockHeight.toString())
        .orderBy('last_valid_block_height')
        .limit(limit)
        .execute();
      const [first] = unexpired;
      return unexpired.length >= limit && first ? BigInt(first.last_valid_block_height) : undefined;
    };
    const paymentFullUntil = await fullUntil('payment_id', transaction.paymentId, COSIGNED_PER_PAYMENT);
    if (paymentFullUntil !== undefined)
      throw limitReached(`${COSIGNED_PER_PAYMENT} transactions signed for this payment`, paymentFullUntil, pace);
    const accountFullUntil = await fullUntil('account', transaction.account, COSIGNED_PER_ACCOUNT);
    if (accountFullUntil !== undefined)
      throw limitReached(`${COSIGNED_PER_ACCOUNT} transactions signed for this account`, accountFullUntil, pace);
    const sol = `${transaction.network}/slip44:501`;
    await reserveNetworkFee(trx, `network_fee:${transaction.signature}`, {
      nativeAsset: sol,
      maxFee: transaction.maxNetworkFee,
      held: await lockedOperatorFunding(trx, sol),
    });
    await tables
      .insertInto('solana_pay_cosigned_transactions')
      .values({
        signature: transaction.signature,
        network: transaction.network,
        reference: transaction.reference,
        payment_id: transaction.paymentId,
        account: transaction.account,
        last_valid_block_height: transaction.lastValidBlockHeight,
        fee_open: true,
      })
      .execute();
  });
}

/** The refusal, Retry-After the time until the block height passes `lastValidBlockHeight`. */
function limitReached(what: string, lastValidBlockHeight: bigint, pace: NetworkPace): ApiError {
  const blocksLeft = Number(lastValidBlockHeight - pace.blockHeight + 1n);
  const retryAfterSeconds = Math.max(1, Math.ceil((blocksLeft * pace.blockTimeMs) / 1000));
  return new ApiError(
    'transaction_request_limit',
    `${what} can still land; ask again in ${retryAfterSeconds} seconds, once one has expired.`,
    undefined,
    { retryAfterSeconds },
  );
}
