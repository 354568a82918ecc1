import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatStatsTotal } from '../../src/dashboard/paymentFormat.ts';
import {
  dayOfEnd,
  dayOfStart,
  endOfDay,
  listQueryOf,
  startOfDay,
  statusCountsQuery,
} from '../../src/dashboard/paymentsQuery.ts';
import { codeSpans, formatFiat, formatTokenExact } from '../../src/ui/format.ts';

const NBSP = '\u00a0';

describe("the dashboard's amounts: exact from minor units, with the currency's own digits", () => {
  it('formats fiat minor units with the ISO 4217 exponent, never through a float', () => {
    expect(formatFiat({ unit: 'iso4217/USD', value: '1234567' }, 'en-US')).toBe('$12,345.67');
    expect(formatFiat({ unit: 'iso4217/USD', value: '5' }, 'en-US')).toBe('$0.05');
    expect(formatFiat({ unit: 'iso4217/JPY', value: '1500' }, 'en-US')).toBe('¥1,500');
    expect(formatFiat({ unit: 'iso4217/KWD', value: '12345' }, 'en-US')).toBe(`KWD${NBSP}12.345`);
    expect(formatFiat({ unit: 'iso4217/EUR', value: '123456' }, 'de-DE')).toBe(`1.234,56${NBSP}€`);
    // Beyond 2^53, where a float would round.
    expect(formatFiat({ unit: 'iso4217/USD', value: '900719925474099312' }, 'en-US')).toBe('$9,007,199,254,740,993.12');
  });

  it('writes every fiat amount with exactly its digits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), (minor) => {
        const text = formatFiat({ unit: 'iso4217/USD', value: minor.toString() }, 'en-US');
        expect(BigInt(text.replace(/[$,.]/g, ''))).toBe(minor);
        expect(text).toMatch(/\.\d{2}$/);
      }),
    );
  });

  it("formats the statistics' totals (standard units) at the currency's digits", () => {
    expect(formatStatsTotal({ amount: 12345.67, currency: 'USD' }, 'en-US')).toBe('$12,345.67');
    expect(formatStatsTotal({ amount: 0.1, currency: 'USD' }, 'en-US')).toBe('$0.10');
    expect(formatStatsTotal({ amount: 1500, currency: 'JPY' }, 'en-US')).toBe('¥1,500');
    expect(formatStatsTotal({ amount: 12.345, currency: 'KWD' }, 'en-US')).toBe(`KWD${NBSP}12.345`);
  });

  it('formats token amounts exactly, to the last digit the token has', () => {
    expect(formatTokenExact('12345670000', { symbol: 'USDC', decimals: 6 })).toBe('12345.67 USDC');
    expect(formatTokenExact('1', { symbol: 'ETH', decimals: 18 })).toBe('0.000000000000000001 ETH');
    expect(formatTokenExact('5000000', { symbol: 'USDC', decimals: 6 })).toBe('5 USDC');
    expect(formatTokenExact('42', undefined)).toBe('42 (minor units)');
  });
});

describe("the payment list's address: the API's own query", () => {
  it('keeps the list parameters only, in a fixed order, without empty values', () => {
    const page = new URLSearchParams('next=x&status=succeeded&referenceId=%20&limit=2&status=failed&utm=1');
    expect(listQueryOf(page).toString()).toBe('status=succeeded&status=failed&limit=2');
  });

  it('counts the statuses under the other filters, whatever the status filter, page and order', () => {
    const query = new URLSearchParams(
      'status=failed&merchantId=mer_1&source=x402&sortBy=amount&sortDir=asc&limit=5&cursor=abc',
    );
    expect(statusCountsQuery(query).toString()).toBe('merchantId=mer_1&source=x402');
  });

  it('turns UTC days into the API range (start inclusive, end exclusive) and back', () => {
    expect(startOfDay('2026-02-28')).toBe('2026-02-28T00:00:00.000Z');
    expect(endOfDay('2026-02-28')).toBe('2026-03-01T00:00:00.000Z');
    expect(endOfDay('2024-12-31')).toBe('2025-01-01T00:00:00.000Z');
    expect(dayOfStart('2026-02-28T00:00:00.000Z')).toBe('2026-02-28');
    expect(dayOfEnd('2026-03-01T00:00:00.000Z')).toBe('2026-02-28');
    expect(dayOfStart(null)).toBe('');
    expect(dayOfEnd('not a time')).toBe('');
  });
});

describe("the API's descriptions in the dashboard", () => {
  it('shows `quoted` parts as code, without their backticks', () => {
    expect(codeSpans('the `asset` parameter is refused (use `token_symbol`).')).toEqual([
      { text: 'the ', code: false },
      { text: 'asset', code: true },
      { text: ' parameter is refused (use ', code: false },
      { text: 'token_symbol', code: true },
      { text: ').', code: false },
    ]);
    expect(codeSpans('The reference version.')).toEqual([{ text: 'The reference version.', code: false }]);
    expect(codeSpans('`POST /v1/payments` takes it')).toEqual([
      { text: 'POST /v1/payments', code: true },
      { text: ' takes it', code: false },
    ]);
  });
});
