import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.ts';
import {
  DISPLAY_NAME_MAX_LENGTH,
  displayNameProblem,
  displayNameToStore,
  trimmedDisplayName,
} from '../../src/http/displayName.ts';

describe('display name rule', () => {
  it.each([
    ['Corner Shop', 'Corner Shop'],
    ['  Corner Shop  ', 'Corner Shop'],
    ['\tCorner Shop\r\n', 'Corner Shop'],
    ['\u00a0\u3000Café Ünïcode\u2003', 'Café Ünïcode'],
    ['Shop\u00a0No.\u00a01', 'Shop\u00a0No.\u00a01'],
    ['مقهى الزاوية', 'مقهى الزاوية'],
    ['街角の店　本店', '街角の店　本店'],
    ['Corner Shop 🍩', 'Corner Shop 🍩'],
    [` ${'x'.repeat(DISPLAY_NAME_MAX_LENGTH)} `, 'x'.repeat(DISPLAY_NAME_MAX_LENGTH)],
    ['🍩'.repeat(DISPLAY_NAME_MAX_LENGTH), '🍩'.repeat(DISPLAY_NAME_MAX_LENGTH)],
  ])('accepts %j, stored as %j', (name, stored) => {
    expect(displayNameProblem(name)).toBeUndefined();
    expect(displayNameToStore(name, 'merchantName')).toBe(stored);
  });

  it.each([
    ['', /blank/],
    ['   ', /blank/],
    ['\n\t\u2003', /blank/],
    ['x'.repeat(DISPLAY_NAME_MAX_LENGTH + 1), /at most 256 characters .*\(it has 257\)/],
    [` ${'🍩'.repeat(DISPLAY_NAME_MAX_LENGTH + 1)} `, /at most 256 characters/],
  ])('refuses %j', (name, message) => {
    expect(displayNameProblem(name)).toMatch(message);
  });

  it.each([
    ['\u2800'],
    ['\u3164'],
    ['\u115f'],
    ['\u1160'],
    ['\uffa0'],
    ['\u180e'],
    ['\u034f'],
    ['\u00ad'],
    ['\u{e0020}'],
    ['\u{e0041}\u{e007f}'],
    ['\u{1d173}'],
    ['\u0301'],
    ['\u0301\u0308\u20dd'],
    [' \u3164 \u2800\u00a0\u034f '],
  ])('refuses %j, which shows nothing', (name) => {
    expect(displayNameProblem(name)).toBe(
      'must have a visible character, not only white space, marks, fillers or invisible characters',
    );
  });

  it.each([['e\u0301'], ['\u2801'], ['\u3131'], ['Caf\u00e9\u00ad'], ['\u3164Shop'], ['\u0301\u0301x']])(
    'accepts %j: one visible character is enough',
    (name) => {
      expect(displayNameProblem(name)).toBeUndefined();
    },
  );

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
      expect(displayNameProblem(name)).toBe(`must not contain bidirectional control characters (found ${label})`);
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
    expect(displayNameProblem(`Sh${character}op`)).toBe(
      `must not contain invisible or control characters (found ${label})`,
    );
  });

  it('refuses a byte-order mark or a zero-width space at the edges: they are not white space', () => {
    expect(displayNameProblem('\ufeffShop')).toMatch(/U\+FEFF/);
    expect(displayNameProblem('Shop\u200b')).toMatch(/U\+200B/);
    expect(trimmedDisplayName('\ufeff Shop ')).toBe('\ufeff Shop');
  });

  it('displayNameToStore refuses with params_validation and one issue on the field it is given', () => {
    let thrown: unknown;
    try {
      displayNameToStore('Evil\u202eShop', 'name');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const error = thrown as ApiError;
    expect([error.status, error.code]).toEqual([400, 'params_validation']);
    expect(error.issues).toEqual([
      { field: 'name', message: 'must not contain bidirectional control characters (found U+202E)' },
    ]);
  });

  it('stores every accepted name trimmed, with no white space at its edges, and never changes it again', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'grapheme', maxLength: 300 }),
          fc.string({
            unit: fc.constantFrom(
              ...[' ', '\t', '\n', '\u00a0', '\u3000', 'a', 'é', '🍩', '\u202e', '\u200b', '\ufeff'],
              ...['\u2800', '\u3164', '\u0301', '\u00ad', '\u{e0020}'],
            ),
            maxLength: 300,
          }),
        ),
        (name) => {
          if (displayNameProblem(name) !== undefined) {
            expect(() => displayNameToStore(name, 'merchantName')).toThrow(ApiError);
            return;
          }
          const stored = displayNameToStore(name, 'merchantName');
          expect(stored).not.toMatch(/^\p{White_Space}|\p{White_Space}$/u);
          expect([...stored].length).toBeGreaterThan(0);
          expect([...stored].length).toBeLessThanOrEqual(DISPLAY_NAME_MAX_LENGTH);
          expect(displayNameToStore(stored, 'merchantName')).toBe(stored);
        },
      ),
    );
  });
});
