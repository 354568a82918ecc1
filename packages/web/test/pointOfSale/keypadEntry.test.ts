import { describe, expect, it } from 'vitest';
import { pressKey, withTip } from '../../src/pointOfSale/keypadEntry.ts';

const type = (keys: string[]) => keys.reduce(pressKey, '');

describe('the keypad amount', () => {
  it('shifts digits in from the right as minor units, with 00, delete and clear', () => {
    expect(type(['1', '2', '3', '4'])).toBe('1234');
    expect(type(['5', '00'])).toBe('500');
    expect(type(['0', '0', '7'])).toBe('7');
    expect(type(['1', '2', 'back'])).toBe('1');
    expect(type(['back'])).toBe('');
    expect(type(['9', 'clear'])).toBe('');
    expect(type(['1', '.', 'x'])).toBe('1');
  });

  it('takes at most 12 digits', () => {
    expect(type(Array(13).fill('9'))).toBe('9'.repeat(12));
    expect(type([...Array(11).fill('9'), '00'])).toBe('9'.repeat(11));
  });
});

describe('withTip', () => {
  it('adds the preset tip exactly, rounded half up to the minor unit', () => {
    expect(withTip('1234', 15)).toEqual({ tip: 185n, total: 1419n });
    expect(withTip('1234', undefined)).toEqual({ tip: 0n, total: 1234n });
    expect(withTip('', 10)).toEqual({ tip: 0n, total: 0n });
  });
});
