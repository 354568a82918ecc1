import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLinkTerms, visitAmount } from '../../src/paymentLinks/paymentLinkTerms.ts';

const NOW = new Date('2026-11-29T12:00:00Z');
const nowS = Math.floor(NOW.getTime() / 1000);
const fixed = { amount: { unit: 'iso4217/USD', value: '1250' }, description: 'Coffee beans, 1 kg' };
const fieldsOf = (input: Parameters<typeof checkLinkTerms>[0]) =>
  checkLinkTerms(input, NOW).issues.map((issue) => issue.field);

describe('payment link terms', () => {
  it('takes a fixed price with a quantity, a use limit, an image and an end', () => {
    const { terms, issues } = checkLinkTerms(
      {
        ...fixed,
        description: '  Coffee beans, 1 kg ',
        quantity: { maximum: 5 },
        maxUses: 10,
        imageUrl: 'https://shop.example/beans.png',
        expiresAt: nowS + 3600,
      },
      NOW,
    );
    expect(issues).toEqual([]);
    expect(terms).toEqual({
      currency: 'USD',
      amount: 1250n,
      custom: null,
      description: 'Coffee beans, 1 kg',
      imageUrl: 'https://shop.example/beans.png',
      maxQuantity: 5,
      maxUses: 10,
      expiresAt: new Date((nowS + 3600) * 1000),
    });
  });

  it('takes a price the buyer chooses within bounds, with a suggestion between them', () => {
    const { terms } = checkLinkTerms(
      {
        customAmount: { unit: 'iso4217/EUR', minimum: '100', maximum: '50000', preset: '2000' },
        description: 'Tip the band',
      },
      NOW,
    );
    expect(terms).toMatchObject({
      currency: 'EUR',
      amount: null,
      custom: { minimum: 100n, maximum: 50000n, preset: 2000n },
    });
  });

  it('refuses no price or both kinds, unknown currencies and amounts that are not positive minor units', () => {
    expect(fieldsOf({ description: 'x' })).toEqual(['amount']);
    expect(fieldsOf({ ...fixed, customAmount: { unit: 'iso4217/USD', minimum: '1', maximum: '2' } })).toEqual([
      'amount',
    ]);
    expect(fieldsOf({ ...fixed, amount: { unit: 'iso4217/XYZ', value: '100' } })).toEqual(['amount.unit']);
    expect(fieldsOf({ ...fixed, amount: { unit: 'USD', value: '100' } })).toEqual(['amount.unit']);
    for (const value of ['0', '-5', '1.5', '01', '1e3', '', '1'.repeat(19)]) {
      expect(fieldsOf({ ...fixed, amount: { unit: 'iso4217/USD', value } })).toEqual(['amount.value']);
    }
  });

  it('refuses bounds out of order and a suggestion outside them', () => {
    const custom = (minimum: string, maximum: string, preset?: string) =>
      fieldsOf({ description: 'x', customAmount: { unit: 'iso4217/USD', minimum, maximum, preset: preset ?? null } });
    expect(custom('500', '100')).toEqual(['customAmount.maximum']);
    expect(custom('100', '500', '99')).toEqual(['customAmount.preset']);
    expect(custom('100', '500', '501')).toEqual(['customAmount.preset']);
    expect(custom('100', '100', '100')).toEqual([]);
    expect(custom('0', '100')).toEqual(['customAmount.minimum']);
  });

  it('refuses an empty or control-character description, a non-HTTPS image, a quantity without a fixed price and an end in the past', () => {
    expect(fieldsOf({ ...fixed, description: '   ' })).toEqual(['description']);
    expect(fieldsOf({ ...fixed, description: 'a\u0000b' })).toEqual(['description']);
    expect(fieldsOf({ ...fixed, description: 'x'.repeat(501) })).toEqual(['description']);
    for (const imageUrl of [
      'http://shop.example/a.png',
      'javascript:alert(1)',
      'https://user:pw@shop.example/a.png',
      'a.png',
    ]) {
      expect(fieldsOf({ ...fixed, imageUrl })).toEqual(['imageUrl']);
    }
    expect(
      fieldsOf({
        description: 'x',
        customAmount: { unit: 'iso4217/USD', minimum: '1', maximum: '2' },
        quantity: { maximum: 2 },
      }),
    ).toEqual(['quantity']);
    expect(
      fieldsOf({ ...fixed, amount: { unit: 'iso4217/USD', value: '1'.repeat(18) }, quantity: { maximum: 100 } }),
    ).toEqual(['quantity.maximum']);
    expect(fieldsOf({ ...fixed, expiresAt: nowS })).toEqual(['expiresAt']);
    expect(fieldsOf({ ...fixed, expiresAt: nowS + 6 * 366 * 86400 })).toEqual(['expiresAt']);
  });

  it('reports every issue at once', () => {
    expect(
      fieldsOf({ amount: { unit: 'iso4217/XYZ', value: '0' }, description: '', imageUrl: 'ftp://x', expiresAt: 1 }),
    ).toEqual(['amount.unit', 'amount.value', 'description', 'imageUrl', 'expiresAt']);
  });
});

describe('the amount of a visit', () => {
  const fixedTerms = { amount: 1250n, custom: null, maxQuantity: 3 };
  const customTerms = { amount: null, custom: { minimum: 100n, maximum: 5000n, preset: null }, maxQuantity: null };

  it('is the fixed price times the quantity chosen, one when none is', () => {
    expect(visitAmount(fixedTerms, {})).toBe(1250n);
    expect(visitAmount(fixedTerms, { quantity: 3 })).toBe(3750n);
    expect(visitAmount({ ...fixedTerms, maxQuantity: null }, { quantity: 1 })).toBe(1250n);
  });

  it('refuses a quantity outside 1 to the most allowed', () => {
    for (const quantity of [0, 4, -1, 1.5]) {
      expect(visitAmount(fixedTerms, { quantity })).toEqual({ refused: 'quantity_out_of_range' });
    }
    expect(visitAmount({ ...fixedTerms, maxQuantity: null }, { quantity: 2 })).toEqual({
      refused: 'quantity_out_of_range',
    });
  });

  it("is the buyer's amount within the bounds, exactly; outside them or missing it is refused", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10_000n }), (amount) => {
        const result = visitAmount(customTerms, { amount });
        if (amount < 100n) expect(result).toEqual({ refused: 'amount_below' });
        else if (amount > 5000n) expect(result).toEqual({ refused: 'amount_above' });
        else expect(result).toBe(amount);
      }),
    );
    expect(visitAmount(customTerms, {})).toEqual({ refused: 'amount_missing' });
  });
});
