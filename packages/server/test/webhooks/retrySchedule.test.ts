import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, nextAttemptAt, retryDelayMs } from '../../src/webhooks/retrySchedule.ts';

const HOUR = 3_600_000;
const policy = DEFAULT_RETRY_POLICY;

/** Attempt times (ms after the first) until the schedule gives up, with the given random source. */
function attemptTimes(random: () => number): number[] {
  const first = new Date(0);
  const times = [0];
  for (let failed = 1; ; failed += 1) {
    const next = nextAttemptAt(policy, failed, first, new Date(times[times.length - 1]!), random);
    if (!next) return times;
    times.push(next.getTime());
    if (failed > 1000) throw new Error('the schedule never gives up');
  }
}

describe('webhook retry schedule', () => {
  it('doubles the wait after each failure, from 30 s up to a 6 h ceiling', () => {
    const middle = () => 0.5;
    const waits = Array.from({ length: 13 }, (_, index) => retryDelayMs(policy, index + 1, middle));
    expect(waits.slice(0, 4)).toEqual([30_000, 60_000, 120_000, 240_000]);
    for (let index = 1; index < 10; index += 1) expect(waits[index]).toBe(2 * waits[index - 1]!);
    expect(waits.slice(10)).toEqual([6 * HOUR, 6 * HOUR, 6 * HOUR]);
    expect(retryDelayMs(policy, 5000, middle)).toBe(6 * HOUR);
  });

  it('spreads each wait within 20 % either side of the nominal wait', () => {
    expect(retryDelayMs(policy, 1, () => 0)).toBe(24_000);
    expect(retryDelayMs(policy, 1, () => 0.999_999)).toBeCloseTo(36_000, -1);
    const samples = Array.from({ length: 2000 }, () => retryDelayMs(policy, 3, Math.random));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(0.8 * 120_000);
    // Rounded to whole milliseconds, a draw just under 1 lands on the bound itself.
    expect(Math.max(...samples)).toBeLessThanOrEqual(1.2 * 120_000);
    // Real jitter: the samples are spread out, not a handful of values.
    expect(new Set(samples).size).toBeGreaterThan(500);
    expect(Math.max(...samples) - Math.min(...samples)).toBeGreaterThan(0.3 * 120_000);
  });

  it('keeps retrying for about 3 days and never past them', () => {
    for (const random of [() => 0, () => 0.5, () => 0.999_999, Math.random]) {
      const times = attemptTimes(random);
      const last = times[times.length - 1]!;
      expect(last).toBeLessThanOrEqual(72 * HOUR);
      expect(last).toBeGreaterThan(72 * HOUR - 1.2 * 6 * HOUR);
      expect(times.length).toBeGreaterThanOrEqual(17);
      expect(times.length).toBeLessThanOrEqual(26);
      for (let index = 1; index < times.length; index += 1) expect(times[index]!).toBeGreaterThan(times[index - 1]!);
    }
  });

  it('gives up when the next attempt would fall after the limit', () => {
    const first = new Date('2026-03-01T00:00:00Z');
    const nearTheEnd = new Date(first.getTime() + 72 * HOUR - 60_000);
    expect(nextAttemptAt(policy, 20, first, nearTheEnd, () => 0.5)).toBeNull();
    const early = nextAttemptAt(policy, 1, first, first, () => 0.5);
    expect(early?.toISOString()).toBe('2026-03-01T00:00:30.000Z');
  });
});
