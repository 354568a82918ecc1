import { describe, expect, it } from 'vitest';
import { newId, nextUlid } from '../../src/ids.ts';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('ids', () => {
  it('are prefixed ULIDs, distinct and in the order they were made', () => {
    const ids = Array.from({ length: 5000 }, () => newId('pay'));
    for (const id of ids) expect(id).toMatch(/^pay_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('draw fresh randomness for every new millisecond, across refills of the random pool', () => {
    // 16 random characters per new millisecond: 2,000 of them draw 32,000 bytes, eight refills of the 4 KiB pool.
    const start = Date.now() + 1_000_000;
    const randomParts = Array.from({ length: 2000 }, (_, index) => nextUlid(start + index).slice(10));
    for (const part of randomParts) expect(`0000000000${part}`).toMatch(ULID);
    expect(new Set(randomParts).size).toBe(randomParts.length);
    // Each of the 32 characters shows up in every position: the bytes are spread, not stuck.
    for (let position = 0; position < 16; position += 1) {
      expect(new Set(randomParts.map((part) => part[position])).size).toBe(32);
    }
  });
});
