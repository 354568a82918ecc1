import type { Address } from 'viem';
import type { Db } from '../../src/db/database.ts';
import { fixDepositQuotes } from '../../src/deposits/depositQuotes.ts';

/**
 * Fixes a payment's deposit quote, as its checkout page does when it first shows it: the payment's address asks
 * `amount` of `asset` on `chain` (10 USDC unless told); returns the deposit address.
 */
export async function quoteDeposit(
  db: Db,
  collector: `0x${string}`,
  paymentId: string,
  quote: { chain: string; asset: string; amount?: bigint; native?: boolean },
): Promise<Address> {
  const payment = await db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
  const [fixed] = await fixDepositQuotes(db, collector, payment, [
    { chain: quote.chain, asset: quote.asset, amount: quote.amount ?? 10_000_000n, native: quote.native ?? false },
  ]);
  return fixed!.address;
}
