import { type Logger, pino } from 'pino';

export type { Logger };

/** Credentials a request may carry; never written to the log. */
const REDACTED = ['req.headers["api-key"]', 'req.headers.authorization'];

/** A buyer-data form link carries its token in the path: a credential, kept out of the log. */
export function redactedUrl(url: string): string {
  return url.replace(/\/collect\/[^/?#]+/, '/collect/[redacted]');
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

/** The process's logger: JSON lines on stdout; each long-lived part logs through a child naming it. */
export function createLogger(level: string): Logger {
  return pino({ level, redact: REDACTED, serializers: { req: serializedRequest } });
}

/** Writes nothing: the logger of parts run without one (tests and benchmarks that do not read it). */
export const silentLogger: Logger = pino({ enabled: false });
