/**
 * Test-only crash points in a transfer from the collector (a settlement, a refund). A crash between journaling a transfer and sending it, or between
 * sending it and recording its outcome, lasts microseconds and cannot be hit reliably by killing the process from
 * outside; the restart tests start the service through their own entry point with a crash point (`StartOptions` in
 * main.ts) to make the process die there, as a power cut would (SIGKILL: no shutdown code runs). The service's own
 * command line has no way to set one.
 */
export const TRANSFER_CRASH_POINTS = ['recorded', 'broadcast'] as const;
export type TransferCrashPoint = (typeof TRANSFER_CRASH_POINTS)[number];

/** Kills this process at once when `configured` is `point`. */
export function transferCrashPoint(configured: TransferCrashPoint | undefined, point: TransferCrashPoint): void {
  if (configured !== point) return;
  process.stderr.write(`paygate: test crash point "${point}" reached; killing the process\n`);
  process.kill(process.pid, 'SIGKILL');
}
