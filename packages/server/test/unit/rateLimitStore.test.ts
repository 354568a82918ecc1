import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, type WindowCount } from '../../src/http/rateLimit.ts';

function hit(store: MemoryRateLimitStore, key: string, max = 1000, windowMs = 1000): WindowCount {
  let counted: WindowCount | undefined;
  store.hit(key, max, windowMs, (error, count) => {
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

  it('keeps a blocked window and one past half its limit through a flood of one-request keys', () => {
    let now = 0;
    const store = new MemoryRateLimitStore(100, () => now);
    for (let request = 0; request < 11; request++) hit(store, 'blocked', 10);
    for (let request = 0; request < 6; request++) hit(store, 'past-half', 10);
    for (let request = 0; request < 5; request++) hit(store, 'at-half', 10);
    now += 10;
    for (let key = 0; key < 1_000; key++) hit(store, `invented-${key}`, 10);
    expect(hit(store, 'blocked', 10).count).toBe(12);
    expect(hit(store, 'past-half', 10).count).toBe(7);
    // Under half its limit a window may go, which gives back fewer requests than the flood cost.
    expect(hit(store, 'at-half', 10).count).toBe(1);
    expect(hit(store, 'invented-999', 10).count).toBe(2);
  });

  it('drops a heavy window for another only when heavy ones fill it, the oldest first, or once it has ended', () => {
    let now = 0;
    const store = new MemoryRateLimitStore(2, () => now);
    hit(store, 'first', 1);
    hit(store, 'second', 1);
    hit(store, 'third', 1);
    expect(hit(store, 'first', 1).count).toBe(1);
    expect(hit(store, 'third', 1).count).toBe(2);
    now += 1000;
    expect(hit(store, 'third', 1)).toEqual({ count: 1, resetInMs: 1000 });
  });
});
