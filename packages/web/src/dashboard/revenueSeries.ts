import { fiatCurrency } from '@paygate/client/money';
import type { RevenueDayView } from './apiTypes.ts';

/** How a currency's revenue is split into series: not at all, by token, or by network. */
export const SPLITS = [
  { id: 'none', label: 'Total' },
  { id: 'token', label: 'By token' },
  { id: 'network', label: 'By network' },
] as const;

export type Split = (typeof SPLITS)[number]['id'];

export function splitOf(query: URLSearchParams): Split {
  return SPLITS.find((split) => split.id === query.get('split'))?.id ?? 'none';
}

export interface RevenueSeries {
  label: string;
  /** Minor units of the currency per day of the range, in order. */
  perDay: bigint[];
  /** Minor units over the range. */
  total: bigint;
  payments: number;
}

/** One currency's revenue over a range: its series and their sum. */
export interface CurrencyRevenue {
  currency: string;
  /** Digits of the currency's minor unit. */
  decimals: number;
  series: RevenueSeries[];
  perDay: bigint[];
  total: bigint;
  payments: number;
}

/**
 * The revenue entries (`GET /v1/payments/revenue`) as series per currency over `days`, split by `split`; every
 * amount exact (bigint minor units), so each currency's total is the API's to the last digit.
 */
export function revenueByCurrency(
  entries: RevenueDayView[],
  days: string[],
  split: Split,
  networkName: (caip2: string) => string,
): CurrencyRevenue[] {
  const dayIndex = new Map(days.map((day, index) => [day, index]));
  const labelOf = (entry: RevenueDayView) => {
    if (split === 'token') return entry.tokenSymbol || 'No token';
    if (split === 'network') return entry.network ? networkName(entry.network) : 'No network';
    return 'Revenue';
  };
  const currencies = new Map<string, Map<string, RevenueSeries>>();
  for (const entry of entries) {
    const series = currencies.get(entry.currency) ?? new Map<string, RevenueSeries>();
    currencies.set(entry.currency, series);
    const label = labelOf(entry);
    const one = series.get(label) ?? { label, perDay: days.map(() => 0n), total: 0n, payments: 0 };
    series.set(label, one);
    const revenue = BigInt(entry.revenue);
    const index = dayIndex.get(entry.day);
    if (index !== undefined) one.perDay[index]! += revenue;
    one.total += revenue;
    one.payments += entry.payments;
  }
  return [...currencies.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, byLabel]) => {
      const series = [...byLabel.values()].sort((a, b) => a.label.localeCompare(b.label));
      return {
        currency,
        decimals: fiatCurrency(currency)?.decimals ?? 2,
        series,
        perDay: days.map((_day, index) => series.reduce((sum, one) => sum + one.perDay[index]!, 0n)),
        total: series.reduce((sum, one) => sum + one.total, 0n),
        payments: series.reduce((sum, one) => sum + one.payments, 0),
      };
    });
}
