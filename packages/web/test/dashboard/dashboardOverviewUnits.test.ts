import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RevenueDayView } from '../../src/dashboard/apiTypes.ts';
import { daysOf, MAX_RANGE_DAYS, rangeOf, rangeQuery } from '../../src/dashboard/overviewRange.ts';
import { revenueByCurrency } from '../../src/dashboard/revenueSeries.ts';
import { feesText } from '../../src/operator/fees.ts';
import { minorUnitsOf } from '../../src/ui/format.ts';
import { formatMinorUnits } from '@paygate/client/money';

const query = (text: string) => new URLSearchParams(text);

describe("the overview's range: UTC days in the address, the API's startTs and endTs", () => {
  it('ends the presets today, 30 days by default', () => {
    expect(rangeOf(query(''), '2026-03-10')).toEqual({ kind: '30d', from: '2026-02-09', to: '2026-03-10' });
    expect(rangeOf(query('range=7d'), '2026-03-01')).toEqual({ kind: '7d', from: '2026-02-23', to: '2026-03-01' });
    expect(rangeOf(query('range=unknown'), '2026-03-10').kind).toBe('30d');
    expect(rangeQuery(rangeOf(query('range=7d'), '2026-03-01')).toString()).toBe(
      new URLSearchParams({ startTs: '2026-02-23T00:00:00.000Z', endTs: '2026-03-02T00:00:00.000Z' }).toString(),
    );
    expect(daysOf(rangeOf(query('range=7d'), '2024-03-01'))).toEqual([
      '2024-02-24',
      '2024-02-25',
      '2024-02-26',
      '2024-02-27',
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
    ]);
  });

  it('takes a custom range of real days, in order, of at most two years; says what is wrong otherwise', () => {
    expect(rangeOf(query('range=custom&from=2026-01-05&to=2026-01-05'), '2026-03-10')).toEqual({
      kind: 'custom',
      from: '2026-01-05',
      to: '2026-01-05',
    });
    const problem = (text: string) => rangeOf(query(text), '2026-03-10').problem;
    expect(problem('range=custom')).toBe('Choose the first and last day.');
    expect(problem('range=custom&from=2026-02-30&to=2026-03-01')).toBe('Choose the first and last day.');
    expect(problem('range=custom&from=2026-03-02&to=2026-03-01')).toBe('The first day is after the last day.');
    expect(problem('range=custom&from=0001-01-01&to=9999-12-31')).toBe(`Choose at most ${MAX_RANGE_DAYS} days.`);
    expect(problem('range=custom&from=2024-03-01&to=2026-02-28')).toBeUndefined();
  });
});

describe('revenue per day as series: exact sums per currency, split by token or network', () => {
  const entry = (day: string, currency: string, tokenSymbol: string, network: string, revenue: string) =>
    ({ day, currency, tokenSymbol, network, payments: 1, revenue }) satisfies RevenueDayView;
  const entries = [
    entry('2026-03-01', 'USD', 'USDC', 'eip155:8453', '900719925474099312'),
    entry('2026-03-01', 'USD', 'USDT', 'eip155:1', '1'),
    entry('2026-03-03', 'USD', 'USDC', 'eip155:1', '250'),
    entry('2026-03-02', 'JPY', 'USDC', 'eip155:8453', '1500'),
  ];
  const days = ['2026-03-01', '2026-03-02', '2026-03-03'];
  const names = (caip2: string) => ({ 'eip155:8453': 'Base', 'eip155:1': 'Ethereum' })[caip2] ?? caip2;

  it('adds each currency up exactly, beyond what a float holds, whatever the split', () => {
    for (const split of ['none', 'token', 'network'] as const) {
      const [jpy, usd] = revenueByCurrency(entries, days, split, names);
      expect([jpy!.currency, jpy!.decimals, jpy!.total, jpy!.perDay]).toEqual(['JPY', 0, 1500n, [0n, 1500n, 0n]]);
      expect([usd!.currency, usd!.total, usd!.payments]).toEqual(['USD', 900719925474099563n, 3]);
      expect(usd!.perDay).toEqual([900719925474099313n, 0n, 250n]);
      expect(usd!.series.reduce((sum, series) => sum + series.total, 0n)).toBe(usd!.total);
    }
    const byToken = revenueByCurrency(entries, days, 'token', names)[1]!.series;
    expect(byToken.map((series) => [series.label, series.perDay])).toEqual([
      ['USDC', [900719925474099312n, 0n, 250n]],
      ['USDT', [1n, 0n, 0n]],
    ]);
    const byNetwork = revenueByCurrency(entries, days, 'network', names)[1]!.series;
    expect(byNetwork.map((series) => [series.label, series.total])).toEqual([
      ['Base', 900719925474099312n],
      ['Ethereum', 251n],
    ]);
    expect(revenueByCurrency([], days, 'none', names)).toEqual([]);
  });
});

describe('amounts typed by a person, to minor units by string arithmetic', () => {
  it('reads plain decimals with at most the currency digits', () => {
    expect(minorUnitsOf('12.34', 2)).toBe('1234');
    expect(minorUnitsOf(' 12,5 ', 2)).toBe('1250');
    expect(minorUnitsOf('12', 2)).toBe('1200');
    expect(minorUnitsOf('1500', 0)).toBe('1500');
    expect(minorUnitsOf('1.250', 3)).toBe('1250');
    expect(minorUnitsOf('9007199254740993.12', 2)).toBe('900719925474099312');
    for (const wrong of ['12.345', '1,234.56', '-1', '1e3', '', '.5', '$12'])
      expect(minorUnitsOf(wrong, 2)).toBeUndefined();
    expect(minorUnitsOf('12.5', 0)).toBeUndefined();
  });

  it('reads back every amount written with the currency digits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), fc.integer({ min: 0, max: 4 }), (minor, decimals) => {
        expect(minorUnitsOf(formatMinorUnits(minor, decimals), decimals)).toBe(minor.toString());
      }),
    );
  });

  it("writes a partner's fee schedule in words, fixed fees with their currency's digits", () => {
    expect(feesText({ percentage: '0', fixed: [] })).toBe('None');
    expect(feesText({ percentage: '0.00', fixed: [{ currency: 'USD', amount: '30' }] })).toBe('$0.30');
    expect(
      feesText({
        percentage: '1.5',
        fixed: [
          { currency: 'JPY', amount: '45' },
          { currency: 'KWD', amount: '1250' },
        ],
      }),
    ).toBe('1.5% + ¥45 + KWD\u00a01.250');
  });
});
