/**
 * Test-only crash points in a settlement transfer. A crash between journaling a transfer and sending it, or between
 * sending it and recording its outcome, lasts microseconds and cannot be hit reliably by killing the process from
 * outside; the restart tests set PAYGATE_TEST_SETTLEMENT_CRASH to make the process die there, as a power cut would
 * (SIGKILL: no shutdown code runs). Never set it in production.
 */
export const TRANSFER_CRASH_POINTS = ['recorded', 'broadcast'] as const;
export type TransferCrashPoint = (typeof TRANSFER_CRASH_POINTS)[number];

export const CRASH_POINT_VARIABLE = 'PAYGATE_TEST_SETTLEMENT_CRASH';

/** The crash point named in the environment, if any. */
export function crashPointFromEnv(env: Record<string, string | undefined>): TransferCrashPoint | undefined {
  const value = env[CRASH_POINT_VARIABLE];
  if (!value) return undefined;
  if (!(TRANSFER_CRASH_POINTS as readonly string[]).includes(value)) {
    throw new Error(`${CRASH_POINT_VARIABLE} must be one of ${TRANSFER_CRASH_POINTS.join(', ')}`);
  }
  return value as TransferCrashPoint;
}

/** Kills this process at once when `configured` is `point`. */
export function transferCrashPoint(configured: TransferCrashPoint | undefined, point: TransferCrashPoint): void {
  if (configured !== point) return;
  process.stderr.write(`paygate: test crash point "${point}" reached; killing the process\n`);
  process.kill(process.pid, 'SIGKILL');
}
