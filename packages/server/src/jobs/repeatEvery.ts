import { setTimeout as sleep } from 'node:timers/promises';

export interface RepeatingTask {
  /** Starts the next pass without waiting out the interval (after the pass under way, if any). */
  soon(): void;
  /** Stops the loop and waits for a pass under way, at most `stopWaitMs`. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` now and then every `intervalMs` until stopped; a failed pass is reported and the loop goes on. The wait
 * between passes is cut short by `stop`, so shutdown does not wait out a long interval, and by `soon`, to a tenth of a
 * second.
 */
export function repeatEvery(
  pass: () => Promise<unknown>,
  intervalMs: number,
  onFailure: (error: Error) => void,
  options: { stopWaitMs?: number } = {},
): RepeatingTask {
  let stopped = false;
  let wanted = false;
  const loop = (async () => {
    while (!stopped) {
      wanted = false;
      await pass().catch(onFailure);
      const wake = Date.now() + intervalMs;
      while (!stopped && !wanted && Date.now() < wake) await sleep(Math.min(100, intervalMs));
    }
  })();
  return {
    soon: () => {
      wanted = true;
    },
    stop: async () => {
      stopped = true;
      await (options.stopWaitMs === undefined ? loop : Promise.race([loop, sleep(options.stopWaitMs)]));
    },
  };
}
