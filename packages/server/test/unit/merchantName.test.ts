import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.ts';
import {
  MERCHANT_NAME_MAX_LENGTH,
  merchantNameProblem,
  merchantNameToStore,
  trimmedMerchantName,
} from '../../src/merchants/merchantName.ts';

describe('merchant name rule', () => {
  it.each([
    ['Corner Shop', 'Corner Shop'],
    ['  Corner Shop  ', 'Corner Shop'],
    ['\tCorner Shop\r\n', 'Corner Shop'],
    ['\u00a0\u3000Café Ünïcode\u2003', 'Café Ünïcode'],
    ['Shop\u00a0No.\u00a01', 'Shop\u00a0No.\u00a01'],
    ['مقهى الزاوية', 'مقهى الزاوية'],
    ['街角の店　本店', '街角の店　本店'],
    ['Corner Shop 🍩', 'Corner Shop 🍩'],
    [` ${'x'.repeat(MERCHANT_NAME_MAX_LENGTH)} `, 'x'.repeat(MERCHANT_NAME_MAX_LENGTH)],
    ['🍩'.repeat(MERCHANT_NAME_MAX_LENGTH), '🍩'.repeat(MERCHANT_NAME_MAX_LENGTH)],
  ])('accepts %j, stored as %j', (name, stored) => {
    expect(merchantNameProblem(name)).toBeUndefined();
    expect(merchantNameToStore(name)).toBe(stored);
  });

  it.each([
    ['', /blank/],
    ['   ', /blank/],
    ['\n\t\u2003', /blank/],
    ['x'.repeat(MERCHANT_NAME_MAX_LENGTH + 1), /at most 256 characters .*\(it has 257\)/],
    [` ${'🍩'.repeat(MERCHANT_NAME_MAX_LENGTH + 1)} `, /at most 256 characters/],
  ])('refuses %j', (name, message) => {
    expect(merchantNameProblem(name)).toMatch(message);
  });

  it.each([
    ['\u202a', 'U+202A'],
    ['\u202b', 'U+202B'],
    ['\u202c', 'U+202C'],
    ['\u202d', 'U+202D'],
    ['\u202e', 'U+202E'],
    ['\u2066', 'U+2066'],
    ['\u2067', 'U+2067'],
    ['\u2068', 'U+2068'],
    ['\u2069', 'U+2069'],
    ['\u200e', 'U+200E'],
    ['\u200f', 'U+200F'],
    ['\u061c', 'U+061C'],
  ])('refuses the bidirectional control %j anywhere in the name, naming it', (character, label) => {
    for (const name of [`Shop${character}`, `${character}Shop`, `Sh${character}op`, `Shop ${character} `]) {
      expect(merchantNameProblem(name)).toBe(`must not contain bidirectional control characters (found ${label})`);
    }
  });

  it.each([
    ['\u0000', 'U+0000'],
    ['\u0007', 'U+0007'],
    ['\n', 'U+000A'],
    ['\u001b', 'U+001B'],
    ['\u007f', 'U+007F'],
    ['\u0080', 'U+0080'],
    ['\u009f', 'U+009F'],
    ['\u200b', 'U+200B'],
    ['\u200c', 'U+200C'],
    ['\u200d', 'U+200D'],
    ['\u2060', 'U+2060'],
    ['\ufeff', 'U+FEFF'],
    ['\u2028', 'U+2028'],
  ])('refuses the invisible or control character %j inside the name, naming it', (character, label) => {
    expect(merchantNameProblem(`Sh${character}op`)).toBe(
      `must not contain invisible or control characters (found ${label})`,
    );
  });

  it('refuses a byte-order mark or a zero-width space at the edges: they are not white space', () => {
    expect(merchantNameProblem('\ufeffShop')).toMatch(/U\+FEFF/);
    expect(merchantNameProblem('Shop\u200b')).toMatch(/U\+200B/);
    expect(trimmedMerchantName('\ufeff Shop ')).toBe('\ufeff Shop');
  });

  it('merchantNameToStore refuses with params_validation and one issue on merchantName', () => {
    let thrown: unknown;
    try {
      merchantNameToStore('Evil\u202eShop');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const error = thrown as ApiError;
    expect([error.status, error.code]).toEqual([400, 'params_validation']);
    expect(error.issues).toEqual([
      { field: 'merchantName', message: 'must not contain bidirectional control characters (found U+202E)' },
    ]);
  });

  it('stores every accepted name trimmed, with no white space at its edges, and never changes it again', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'grapheme', maxLength: 300 }),
          fc.string({
            unit: fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u3000', 'a', 'é', '🍩', '\u202e', '\u200b', '\ufeff'),
            maxLength: 300,
          }),
        ),
        (name) => {
          if (merchantNameProblem(name) !== undefined) {
            expect(() => merchantNameToStore(name)).toThrow(ApiError);
            return;
          }
          const stored = merchantNameToStore(name);
          expect(stored).not.toMatch(/^\p{White_Space}|\p{White_Space}$/u);
          expect([...stored].length).toBeGreaterThan(0);
          expect([...stored].length).toBeLessThanOrEqual(MERCHANT_NAME_MAX_LENGTH);
          expect(merchantNameToStore(stored)).toBe(stored);
        },
      ),
    );
  });
});
