import { monotonicFactory } from 'ulid';

export type IdPrefix = 'mrch' | 'pay' | 'crypto' | 'fiat' | 'opt' | 'whk' | 'evt' | 'app' | 'key' | 'ptr';

const nextUlid = monotonicFactory();

/** A prefixed, time-ordered, URL-safe identifier (D4): `mrch_01J...` with a 26-character ULID body. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}
