import type { Address } from 'viem';
import type { Db } from '../db/database.ts';
import { depositAddress } from '../chains/evm/deposits/addresses.ts';
import { withDepositTables } from './depositTables.ts';
import { markExpiryAwaitsFollower } from '../payments/expiryAwaitsFollower.ts';

/** Transfers to a deposit address are still looked for this long after its payment expires, to record late ones. */
export const LATE_DEPOSIT_WATCH_MS = 24 * 60 * 60 * 1000;

/**
 * The native coin is looked for by reading whole blocks, so for less long after expiry; a later transfer stays at
 * the address for the operator.
 */
export const LATE_NATIVE_DEPOSIT_WATCH_MS = 60 * 60 * 1000;

export interface DepositOffer {
  /** CAIP-2 id of the network. */
  chain: string;
  /** CAIP-19 id of the token. */
  asset: string;
  /** Token minor units, as quoted now. */
  amount: bigint;
  /** The network's native coin rather than a token contract. */
  native?: boolean;
}

export interface DepositQuote extends DepositOffer {
  address: Address;
}

/**
 * The amount the payment's deposit address expects in each offered token, fixed the first time it is asked for and
 * kept for the payment's life: a buyer may copy the amount into a wallet long before sending it, so the amount on
 * the page never moves under them. A token quoted for the first time is fixed at `offer.amount`.
 */
export async function fixDepositQuotes(
  db: Db,
  collector: Address,
  payment: { id: string; expires_at: Date; expiry_awaits_follower: boolean },
  offers: DepositOffer[],
): Promise<DepositQuote[]> {
  if (!offers.length) return [];
  const address = depositAddress(collector, payment.id);
  const tables = withDepositTables(db);
  await markExpiryAwaitsFollower(db, payment);
  await tables
    .insertInto('evm_deposit_quotes')
    .values(
      offers.map((offer) => ({
        payment_id: payment.id,
        chain: offer.chain,
        asset: offer.asset,
        address: address.toLowerCase(),
        amount: offer.amount,
        watch_until: new Date(
          payment.expires_at.getTime() + (offer.native ? LATE_NATIVE_DEPOSIT_WATCH_MS : LATE_DEPOSIT_WATCH_MS),
        ),
      })),
    )
    .onConflict((conflict) => conflict.columns(['payment_id', 'chain', 'asset']).doNothing())
    .execute();
  const fixed = await tables
    .selectFrom('evm_deposit_quotes')
    .select(['chain', 'asset', 'amount'])
    .where('payment_id', '=', payment.id)
    .execute();
  const amountOf = new Map(fixed.map((row) => [`${row.chain} ${row.asset}`, BigInt(row.amount)]));
  return offers.flatMap((offer) => {
    const amount = amountOf.get(`${offer.chain} ${offer.asset}`);
    return amount === undefined ? [] : [{ ...offer, amount, address }];
  });
}
