import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, type WindowCount } from '../../src/http/rateLimit.ts';

function hit(store: MemoryRateLimitStore, key: string, windowMs = 1000): WindowCount {
  let counted: WindowCount | undefined;
  store.hit(key, windowMs, (error, count) => {
    expect(error).toBeNull();
    counted = count;
  });
  // The memory store answers synchronously: the request goes on without waiting for a promise.
  expect(counted).toBeDefined();
  return counted!;
}

describe('memory rate-limit store', () => {
  it('counts per key within a window and starts a new window once it has ended', () => {
    let now = 10_000;
    const store = new MemoryRateLimitStore(100, () => now);
    expect(hit(store, 'a')).toEqual({ count: 1, resetInMs: 1000 });
    now += 400;
    expect(hit(store, 'a')).toEqual({ count: 2, resetInMs: 600 });
    expect(hit(store, 'b')).toEqual({ count: 1, resetInMs: 1000 });
    now += 599;
    expect(hit(store, 'a')).toEqual({ count: 3, resetInMs: 1 });
    now += 1;
    expect(hit(store, 'a')).toEqual({ count: 1, resetInMs: 1000 });
  });

  it('drops the oldest window when full, never a newer one', () => {
    let now = 0;
    const store = new MemoryRateLimitStore(2, () => now);
    hit(store, 'oldest');
    now += 10;
    hit(store, 'middle');
    hit(store, 'middle');
    now += 10;
    hit(store, 'newest');
    expect(hit(store, 'middle').count).toBe(3);
    expect(hit(store, 'newest').count).toBe(2);
    expect(hit(store, 'oldest').count).toBe(1);
  });
});
