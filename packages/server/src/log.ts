import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

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

/**
 * The process's logger: JSON lines on stdout (or `destination`); each long-lived part logs through a child naming it.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  processLogger = pino({ level, redact: REDACTED, serializers: { req: serializedRequest } }, destination);
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
