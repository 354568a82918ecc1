export interface RetryPolicy {
  /** Nominal wait after the first failed attempt; each later wait doubles. */
  firstDelayMs: number;
  /** No single wait is (nominally) longer than this. */
  maxDelayMs: number;
  /** No attempt is made later than this after the first attempt; then the delivery is given up. */
  giveUpAfterMs: number;
  /** Each wait is the nominal wait times a random factor in [1 - jitter, 1 + jitter). */
  jitter: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** D17: exponential backoff with jitter for up to 3 days (about 20 attempts: 30 s, 1 min, 2 min, ... then every 6 h). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  firstDelayMs: 30_000,
  maxDelayMs: 6 * HOUR,
  giveUpAfterMs: 72 * HOUR,
  jitter: 0.2,
};

/**
 * The wait before the next attempt after `failedAttempts` (1 or more) failed attempts. Jitter spreads the retries
 * of many deliveries that failed together (a receiver outage), so they do not all hit the receiver at once.
 */
export function retryDelayMs(policy: RetryPolicy, failedAttempts: number, random: () => number = Math.random): number {
  const nominal = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(failedAttempts - 1, 52));
  return Math.round(nominal * (1 - policy.jitter + 2 * policy.jitter * random()));
}

/**
 * When to try again after `failedAttempts` failed attempts, or null to give up because that time would fall more
 * than `giveUpAfterMs` after the first attempt.
 */
export function nextAttemptAt(
  policy: RetryPolicy,
  failedAttempts: number,
  firstAttemptAt: Date,
  lastAttemptAt: Date,
  random: () => number = Math.random,
): Date | null {
  const next = lastAttemptAt.getTime() + retryDelayMs(policy, failedAttempts, random);
  return next - firstAttemptAt.getTime() > policy.giveUpAfterMs ? null : new Date(next);
}
