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

  it('pages keyset reads: a read of limit + 1 rows gives limit rows and a cursor to the last one, a shorter read none', () => {
    const rows = [{ id: 'c' }, { id: 'b' }, { id: 'a' }];
    const full = codec.page(rows, 2, 'q', (row) => row.id);
    expect(full.rows).toEqual([{ id: 'c' }, { id: 'b' }]);
    expect(codec.decode(full.nextCursor as string, 'q')).toBe('b');
    expect(codec.page(rows, 3, 'q', (row) => row.id)).toEqual({ rows, nextCursor: null });
    expect(codec.page([], 3, 'q', (row: { id: string }) => row.id)).toEqual({ rows: [], nextCursor: null });
  });
});
