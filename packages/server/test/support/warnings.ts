import { pino } from 'pino';
import type { Logger } from '../../src/log.ts';

/** A logger that keeps the message of every warning (and worse) it is given in `messages`, for a test to read. */
export function warningsInto(messages: string[]): Logger {
  return pino({ level: 'warn' }, { write: (line: string) => messages.push((JSON.parse(line) as { msg: string }).msg) });
}
