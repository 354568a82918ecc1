import { tipOfPercent } from '@paygate/client/money';

/** The most digits the keypad takes: a trillion of a 2-decimal currency's units, far below the API's bound. */
const MOST_DIGITS = 12;

/**
 * The keypad's amount, in minor units as typed: digits shift in from the right, as on a card terminal, so
 * 1, 2, 3, 4 is 12.34 in a 2-decimal currency. No point to type, no float anywhere.
 */
export function pressKey(minorUnits: string, key: string): string {
  if (key === 'back') return minorUnits.slice(0, -1);
  if (key === 'clear') return '';
  if (!/^\d{1,2}$/.test(key)) return minorUnits;
  const next = `${minorUnits}${key}`.replace(/^0+/, '');
  return next.length > MOST_DIGITS ? minorUnits : next;
}

/** The tip of a preset and the total the buyer pays, exactly as the service will ask it. */
export function withTip(minorUnits: string, tipPercent: number | undefined): { tip: bigint; total: bigint } {
  const base = BigInt(minorUnits || '0');
  const tip = tipPercent === undefined ? 0n : tipOfPercent(base, tipPercent);
  return { tip, total: base + tip };
}
