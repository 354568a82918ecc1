/**
 * The fiat amount of an x402 payment, in minor units of the currency its stablecoin is pegged to (1:1): the token
 * amount is exact (it is what the agent signed, what moves on chain, what fees, settlement and the ledger count),
 * and the fiat amount is that value rounded UP to the currency's minor unit. Every payment's fiat amount is a
 * positive whole number of minor units (D8), so a price below one cent (x402's usual 0.001 USDC) is 0.01 USD and
 * never 0; rounding up rather than to the nearest also keeps the fixed fee, converted at the payment's own rate
 * (token amount / fiat amount), at or below its exact value, in the merchant's favour as every fee rounding is.
 */
export function fiatMinorUnitsOf(tokenValue: bigint, tokenDecimals: number, fiatDecimals: number): bigint {
  if (tokenValue <= 0n) throw new RangeError('a payment is for a positive amount');
  if (tokenDecimals <= fiatDecimals) return tokenValue * 10n ** BigInt(fiatDecimals - tokenDecimals);
  const scale = 10n ** BigInt(tokenDecimals - fiatDecimals);
  return (tokenValue + scale - 1n) / scale;
}
