import { describe, expect, it } from 'vitest';
import { fiatCurrency, toStandardUnits } from '../../src/payments/currencies.ts';

describe('fiat currencies', () => {
  it.each([
    ['USD', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['CLP', 0],
    ['IDR', 2],
    ['HUF', 2],
    ['IQD', 3],
    ['BHD', 3],
    ['KWD', 3],
  ])('%s has %i minor digits as in ISO 4217', (code, decimals) => {
    expect(fiatCurrency(code)?.decimals).toBe(decimals);
  });

  it('refuses unknown codes, lower case and codes without a minor unit', () => {
    for (const code of ['ABC', 'usd', 'US', 'XAU', 'XTS', 'XXX']) expect(fiatCurrency(code)).toBeUndefined();
  });

  it('names currencies for display', () => {
    expect(fiatCurrency('EUR')).toMatchObject({ name: 'Euro', symbol: '€' });
  });

  it('converts minor units to standard units exactly', () => {
    expect(toStandardUnits(1234n, 2)).toBe(12.34);
    expect(toStandardUnits(5n, 3)).toBe(0.005);
    expect(toStandardUnits(1500n, 0)).toBe(1500);
    expect(toStandardUnits(-250n, 2)).toBe(-2.5);
  });
});
