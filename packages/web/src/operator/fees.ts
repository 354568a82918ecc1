import { formatFiat } from '../ui/format.ts';
import type { FeeSchedule } from './operatorApi.ts';

/** A fee schedule in words: `1.5% + $0.30`, each fixed fee with its currency's digits; `None` when it has none. */
export function feesText(fees: FeeSchedule): string {
  const parts = [
    ...(/^0*(\.0*)?$/.test(fees.percentage) ? [] : [`${fees.percentage}%`]),
    ...fees.fixed.map((fee) => formatFiat({ unit: `iso4217/${fee.currency}`, value: fee.amount })),
  ];
  return parts.length ? parts.join(' + ') : 'None';
}
