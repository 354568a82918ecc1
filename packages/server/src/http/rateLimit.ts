import type { FastifyReply } from 'fastify';
import type { Redis, Result } from 'ioredis';
import { ApiError } from './errors.ts';

/** A key's count in its current window. */
export interface WindowCount {
  count: number;
  resetInMs: number;
}

/**
 * Counts requests per key in fixed windows; `done` gets an error when the count could not be kept. `max` is the key's
 * limit: a store that must drop windows keeps those nearest to it.
 */
export interface RateLimitStore {
  hit(key: string, max: number, windowMs: number, done: (error: Error | null, count?: WindowCount) => void): void;
}

interface Window {
  count: number;
  endsAt: number;
}

/**
 * Windows in process memory, answered synchronously, at most `maxKeys` of each of two kinds. A caller can invent keys
 * (a Client-Id, a payment id) and so make a window per request: those are light, under half their limit, and when
 * the light ones fill the store the oldest is dropped, which gives its caller back less than half a limit. A heavy
 * window, at more than half its limit (every blocked one), is kept until it ends: to push one out, a flood must fill
 * the store with heavy windows of its own, each costing half a limit of requests within one window.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  /** In order of start: the first is the oldest. */
  private readonly light = new Map<string, Window>();
  /** In the order they became heavy. */
  private readonly heavy = new Map<string, Window>();

  constructor(
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  hit(key: string, max: number, windowMs: number, done: (error: Error | null, count?: WindowCount) => void): void {
    const now = this.now();
    let window = this.light.get(key) ?? this.heavy.get(key);
    if (!window || window.endsAt <= now) {
      this.light.delete(key);
      this.heavy.delete(key);
      window = { count: 0, endsAt: now + windowMs };
      this.admit(this.light, key, window, now);
    }
    window.count++;
    if (2 * window.count > max && this.light.delete(key)) this.admit(this.heavy, key, window, now);
    done(null, { count: window.count, resetInMs: window.endsAt - now });
  }

  /** Adds a window, first dropping the kind's oldest when it has ended or there is no room for another. */
  private admit(windows: Map<string, Window>, key: string, window: Window, now: number): void {
    const oldest = windows.entries().next().value;
    if (oldest && (oldest[1].endsAt <= now || windows.size >= this.maxKeys)) windows.delete(oldest[0]);
    windows.set(key, window);
  }
}

/** One round-trip per request: count, start the window's expiry on its first request, report the time left. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    paygateRateLimitHit(key: string, windowMs: number): Result<[number, number], Context>;
  }
}

/** Windows in Redis, shared by every process of the service. */
export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'paygate-rate-limit:',
  ) {
    redis.defineCommand('paygateRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  /** Redis keeps every window until it ends, so the limit plays no part here. */
  hit(key: string, _max: number, windowMs: number, done: (error: Error | null, count?: WindowCount) => void): void {
    this.redis.paygateRateLimitHit(this.prefix + key, windowMs).then(
      ([count, resetInMs]) => done(null, { count, resetInMs }),
      (error: Error) => done(error),
    );
  }
}

/**
 * `max` requests per key and window. Every counted response says where the caller stands (`X-RateLimit-Limit`,
 * `-Remaining`, `-Reset` in seconds); one over the limit is refused with 429 `rate_limited` and `Retry-After`.
 * When the store cannot count (Redis away), requests are served unlimited rather than refused; the store's
 * connection reports that in the log.
 */
export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    readonly max: number,
    readonly windowMs: number,
    /** The limit of a wallet App-Id as a whole. */
    readonly appMax = max,
    /** The limit of one payment's costly gateway calls, from every caller together. */
    readonly paymentMax = max,
  ) {}

  /**
   * Counts the request against every limit given (a wallet app's client, its address and the app as a whole); it
   * passes only within all of them, and the headers tell of the one with the least left.
   */
  hitAll(limits: { key: string; max: number }[], reply: FastifyReply, done: (error?: ApiError) => void): void {
    // All counted at once: with Redis, a wallet app's three counts cost one round trip of waiting, not three.
    let tightest: { max: number; count: WindowCount } | undefined;
    let pending = limits.length;
    for (const limit of limits) {
      this.store.hit(limit.key, limit.max, this.windowMs, (error, count) => {
        if (!error && count && (!tightest || limit.max - count.count < tightest.max - tightest.count.count))
          tightest = { max: limit.max, count };
        pending -= 1;
        if (pending === 0) this.answer(tightest, reply, done);
      });
    }
  }

  private answer(
    tightest: { max: number; count: WindowCount } | undefined,
    reply: FastifyReply,
    done: (error?: ApiError) => void,
  ): void {
    if (!tightest) {
      done();
      return;
    }
    const { max, count } = tightest;
    const resetSeconds = Math.max(1, Math.ceil(count.resetInMs / 1000));
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', Math.max(0, max - count.count));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (count.count <= max) {
      done();
      return;
    }
    reply.header('retry-after', resetSeconds);
    done(new ApiError('rate_limited', `Too many requests; retry in ${resetSeconds} s.`, { limit: max }));
  }
}
