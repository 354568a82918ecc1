import { type Logger, pino } from 'pino';

export type { Logger };

/** Credentials a request may carry; never written to the log. */
const REDACTED = ['req.headers["api-key"]', 'req.headers.authorization'];

/** The process's logger: JSON lines on stdout; each long-lived part logs through a child naming it. */
export function createLogger(level: string): Logger {
  return pino({ level, redact: REDACTED });
}

/** Writes nothing: the logger of parts run without one (tests and benchmarks that do not read it). */
export const silentLogger: Logger = pino({ enabled: false });
