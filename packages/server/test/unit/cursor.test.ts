import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../../src/http/cursor.ts';

describe('CursorCodec', () => {
  const codec = new CursorCodec('secret-one');

  it('round-trips any position for the same query', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (position, query) => {
        expect(codec.decode(codec.encode(position, query), query)).toEqual(JSON.parse(JSON.stringify(position)));
      }),
    );
  });

  it('refuses any single-character change, another query, and another secret', () => {
    const cursor = codec.encode({ id: 'pay_1', at: '2026-01-01' }, 'q');
    fc.assert(
      fc.property(fc.nat({ max: cursor.length - 1 }), fc.constantFrom(...'ABCxyz019-_.'), (index, replacement) => {
        fc.pre(cursor[index] !== replacement);
        const altered = `${cursor.slice(0, index)}${replacement}${cursor.slice(index + 1)}`;
        expect(() => codec.decode(altered, 'q')).toThrow(/cursor/);
      }),
    );
    expect(() => codec.decode(cursor, 'other query')).toThrow(/cursor/);
    expect(() => new CursorCodec('secret-two').decode(cursor, 'q')).toThrow(/cursor/);
  });
});
