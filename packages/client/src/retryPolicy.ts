/** How a failed request is tried again. Every field is optional; the defaults suit a partner's backend. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3; 0 turns retries off. */
  retries?: number;
  /** First backoff delay; it doubles on each retry, up to `maxDelayMs`, with up to 50 % random jitter on top. Default 250 ms. */
  initialDelayMs?: number;
  /** Longest backoff delay before jitter. Default 5 000 ms. */
  maxDelayMs?: number;
  /** Longest `Retry-After` of a 429 the client waits for; a longer one is answered to the caller at once. Default 30 000 ms. */
  maxRetryAfterMs?: number;
}

export interface RetryPolicy {
  retries: number;
  initialDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer`);
  return value;
}

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  return {
    retries: nonNegativeInteger(options.retries ?? 3, 'retry.retries'),
    initialDelayMs: nonNegativeInteger(options.initialDelayMs ?? 250, 'retry.initialDelayMs'),
    maxDelayMs: nonNegativeInteger(options.maxDelayMs ?? 5_000, 'retry.maxDelayMs'),
    maxRetryAfterMs: nonNegativeInteger(options.maxRetryAfterMs ?? 30_000, 'retry.maxRetryAfterMs'),
  };
}

/** The wait before retry number `retry` (1 for the first), `random` in [0, 1): exponential with jitter. */
export function backoffMs(policy: RetryPolicy, retry: number, random: number = Math.random()): number {
  const base = Math.min(policy.initialDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  return Math.round(base * (1 + random / 2));
}

/** `Retry-After` in milliseconds from now: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
