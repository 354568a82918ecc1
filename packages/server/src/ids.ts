import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

export type IdPrefix =
  | 'mrch'
  | 'pay'
  | 'crypto'
  | 'fiat'
  | 'opt'
  | 'whk'
  | 'evt'
  | 'app'
  | 'key'
  | 'ptr'
  | 'rfnd'
  | 'exc'
  | 'rcv'
  | 'fnd'
  | 'dss'
  | 'inf'
  | 'plink'
  | 'posd';

const randomPool = Buffer.alloc(4096);
let randomOffset = randomPool.length;

/** Cryptographically random, from a pool refilled 4 KiB at a time: ulid draws one byte per character. */
function pooledRandom(): number {
  if (randomOffset >= randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  return (randomPool[randomOffset++] as number) / 256;
}

/** A time-ordered ULID, increasing within this process even within one millisecond. */
export const nextUlid = monotonicFactory(pooledRandom);

/** A prefixed, time-ordered, URL-safe identifier (D4): `mrch_01J...` with a 26-character ULID body. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}
