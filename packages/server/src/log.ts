import { type DestinationStream, type Logger, pino } from 'pino';
import { isColorSupported, prettyFactory } from 'pino-pretty';

export type { Logger };

/** `json`: one JSON line per entry, for a log collector. `pretty`: one short line per entry, for a person. */
export type LogFormat = 'json' | 'pretty';

/** Credentials a request may carry; never written to the log. */
const REDACTED = ['req.headers["api-key"]', 'req.headers["x-api-key"]', 'req.headers.authorization'];

/**
 * A buyer-data form link and a console's one-time sign-in link carry their token in the path: a credential, kept out
 * of the log (with whatever path follows it).
 */
export function redactedUrl(url: string): string {
  return url.replace(/\/collect\/[^/?#]+/, '/collect/[redacted]').replace(/\/link\/+[^?#]*/, '/link/[redacted]');
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** The request as Fastify logs it (method, URL, host, client address), with credentials taken out of the URL. */
function serializedRequest(request: LoggedRequest) {
  return {
    method: request.method,
    url: redactedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Writes nothing: the logger of parts run without one (tests and benchmarks that do not read it). */
export const silentLogger: Logger = pino({ enabled: false });

/** The logger the process made last, for the parts that are handed none (RPC transports, domain events). */
let processLogger: Logger = silentLogger;

/** Fields a pretty line leaves out: pino's bookkeeping, those it shows in its own way, and the owners' ids. */
const NOT_SHOWN_AS_FIELDS = new Set([
  'time',
  'level',
  'pid',
  'hostname',
  'msg',
  'component',
  'req',
  'res',
  'responseTime',
  'err',
  // The tenant owning a payment, refund or batch: in every JSON line, for filtering; a person follows the subject's id.
  'partnerId',
  'merchantId',
]);

function fieldText(value: unknown): string {
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  return /[\s="]/.test(text) ? JSON.stringify(text) : text;
}

interface LoggedEntry extends Record<string, unknown> {
  level: number;
  component?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
}

const ERROR_LEVEL = 50;
const CONTINUATION = '\n    ';

/**
 * The words after a pretty line's time and level: `[component] message`, a request's method, URL and status, then
 * the entry's other fields as `key=value` (absent ones left out); an error's stack follows on lines of its own.
 */
function prettyMessage(entry: LoggedEntry): string {
  const words: string[] = [];
  if (entry.component) words.push(`[${entry.component}]`);
  // A message of several lines (a node's error quoting its request) keeps its lines, indented under the entry's.
  words.push(String(entry.msg ?? '').replaceAll('\n', CONTINUATION));
  if (entry.req) words.push(`${entry.req.method} ${entry.req.url}`);
  if (entry.res?.statusCode) words.push(String(entry.res.statusCode));
  if (typeof entry.responseTime === 'number') words.push(`${entry.responseTime.toFixed(1)} ms`);
  for (const [key, value] of Object.entries(entry)) {
    if (NOT_SHOWN_AS_FIELDS.has(key) || value === null || value === undefined) continue;
    // A domain event's message is its name already.
    if (key === 'event' && value === entry.msg) continue;
    words.push(`${key}=${fieldText(value)}`);
  }
  if (entry.err) {
    if (entry.level >= ERROR_LEVEL && entry.err.stack) {
      return `${words.join(' ')}${CONTINUATION}${entry.err.stack.replaceAll('\n', CONTINUATION)}`;
    }
    words.push(`err=${fieldText(entry.err.message)}`);
  }
  return words.join(' ');
}

/**
 * A destination that turns each JSON line pino writes, already redacted and serialised, into one pretty line, and
 * writes it synchronously (as pino's own stdout destination does), so an exit right after a line loses nothing.
 */
function prettyDestination(destination: DestinationStream | undefined): DestinationStream {
  const out = destination ?? pino.destination({ dest: 1, sync: true });
  const pretty = prettyFactory({
    // Colour only on a terminal that takes it (pino-pretty's test of stdout).
    colorize: destination === undefined && isColorSupported,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    hideObject: true,
    messageFormat: (entry) => prettyMessage(entry as LoggedEntry),
  });
  return { write: (line: string) => out.write(pretty(line)) };
}

/**
 * The process's logger: JSON lines on stdout (or `destination`), or pretty lines; each long-lived part logs through a
 * child naming it.
 */
export function createLogger(
  level: string,
  options: { format?: LogFormat; destination?: DestinationStream } = {},
): Logger {
  const { format = 'json', destination } = options;
  processLogger = pino(
    { level, redact: REDACTED, serializers: { req: serializedRequest } },
    format === 'pretty' ? prettyDestination(destination) : destination,
  );
  return processLogger;
}

/** The process's logger for a part that is handed none, as a child naming the part. */
export function componentLog(component: string): Logger {
  return processLogger.child({ component });
}

/**
 * Identifiers and amounts of a domain event: ids, amounts, currencies, networks and transaction hashes, never a
 * secret or a buyer's data (no emails, addresses of people, form contents).
 */
export type DomainEventFields = Record<string, string | number | boolean | null | undefined>;

/**
 * One `info` line for a domain event (`payment.succeeded`, `settlement.sent`, ...), written once it is recorded
 * for good (after its transaction commits): `{"event":"payment.succeeded","paymentId":...,"msg":"payment.succeeded"}`.
 */
export function logDomainEvent(event: string, fields: DomainEventFields, level: 'info' | 'warn' = 'info'): void {
  processLogger[level]({ component: 'events', event, ...fields }, event);
}
