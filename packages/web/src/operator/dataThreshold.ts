import { formatFiat } from '../ui/format.ts';

/**
 * A partner's buyer-data threshold in words: `Above $1,000.00` for `USD:100000`, the bare minor units of each
 * payment's own currency for `100000`, `Never asked` for `none`.
 */
export function dataThresholdText(threshold: string): string {
  if (threshold === 'none') return 'Never asked';
  const [currency, amount] = threshold.includes(':') ? threshold.split(':') : [undefined, threshold];
  if (currency) return `Above ${formatFiat({ unit: `iso4217/${currency}`, value: amount ?? '' })}`;
  return `Above ${amount} minor units of the payment’s currency`;
}
