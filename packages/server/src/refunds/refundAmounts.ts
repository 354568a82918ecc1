/** What a payment took: its fiat amount, and the token amount paid when known. Minor units. */
export interface PaidAmounts {
  fiat: bigint;
  token: bigint | null;
}

/** What its refunds that have not failed add up to so far. Minor units. */
export interface RefundedAmounts {
  fiat: bigint;
  token: bigint;
}

/** The fiat amount that may still be refunded. */
export function refundableFiat(paid: PaidAmounts, refunded: RefundedAmounts): bigint {
  const left = paid.fiat - refunded.fiat;
  return left > 0n ? left : 0n;
}

/**
 * The token amount a refund of `fiat` returns. Token amounts follow the fiat refunded in total, rounded down
 * (`floor(token paid x fiat refunded / fiat paid)`), so rounding never adds up over several partial refunds and
 * the refunds of a whole payment return exactly the token amount paid.
 */
export function tokenAmountOfRefund(paid: PaidAmounts, refunded: RefundedAmounts, fiat: bigint): bigint | null {
  if (paid.token === null) return null;
  if (fiat <= 0n || refunded.fiat + fiat > paid.fiat) throw new RangeError('refund outside what was paid');
  return (paid.token * (refunded.fiat + fiat)) / paid.fiat - refunded.token;
}
