/** Minor units as exact decimal text in standard units (1234 with 2 decimals -> `12.34`), never through a float. */
export function formatMinorUnits(minor: bigint, decimals: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, '0');
  const text = decimals ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  return negative ? `-${text}` : text;
}

/**
 * Minor units as a plain decimal, as a wallet's amount field and Solana Pay's `amount` take it: no exponent, no
 * trailing zeros, a leading zero below one (`10500000` with 6 decimals -> `10.5`).
 */
export function decimalAmount(amount: bigint, decimals: number): string {
  if (amount < 0n) throw new RangeError('the amount must not be negative');
  const scale = 10n ** BigInt(decimals);
  const whole = amount / scale;
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** The decimal back in minor units; null when it is not a plain decimal with at most `decimals` places. */
export function minorUnits(decimal: string, decimals: number): bigint | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) return null;
  return BigInt(match[1] as string) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}
