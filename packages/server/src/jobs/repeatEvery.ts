import { setTimeout as sleep } from 'node:timers/promises';

export interface RepeatingTask {
  /** Stops the loop and waits for a pass under way, at most `stopWaitMs`. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` now and then every `intervalMs` until stopped; a failed pass is reported and the loop goes on. The wait
 * between passes is cut short by `stop`, so shutdown does not wait out a long interval.
 */
export function repeatEvery(
  pass: () => Promise<unknown>,
  intervalMs: number,
  onFailure: (error: Error) => void,
  options: { stopWaitMs?: number } = {},
): RepeatingTask {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await pass().catch(onFailure);
      const wake = Date.now() + intervalMs;
      while (!stopped && Date.now() < wake) await sleep(Math.min(100, intervalMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await (options.stopWaitMs === undefined ? loop : Promise.race([loop, sleep(options.stopWaitMs)]));
    },
  };
}
