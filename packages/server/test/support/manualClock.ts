import type { Clock } from '../../src/clock.ts';

/** A clock the test moves by hand; it starts at the real time. */
export class ManualClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
