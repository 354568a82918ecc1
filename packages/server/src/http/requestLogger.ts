import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';
import { redactedUrl } from '../log.ts';

/**
 * A request's logger that becomes a pino child, bound to the request id, only when it first writes a line at an
 * enabled level. Fastify makes a child per request, and making one serialises its bindings: a measurable share
 * of a cached GET, while most requests write nothing at the default level (warn).
 */
class LazyRequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.made ? this.made.level : this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  private write(level: Level, line: unknown[]): void {
    if (this.made || this.parent.isLevelEnabled(level)) (this.logger[level] as (...line: unknown[]) => void)(...line);
  }

  fatal(...line: unknown[]): void {
    this.write('fatal', line);
  }
  error(...line: unknown[]): void {
    this.write('error', line);
  }
  warn(...line: unknown[]): void {
    this.write('warn', line);
  }
  info(...line: unknown[]): void {
    this.write('info', line);
  }
  debug(...line: unknown[]): void {
    this.write('debug', line);
  }
  trace(...line: unknown[]): void {
    this.write('trace', line);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a lazy child, unless the route sets its own log level (then pino must make the
 * child to know which lines it writes).
 */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined) return logger.child(bindings, options);
  return new LazyRequestLogger(logger as Logger, bindings, options);
}

/**
 * Fastify's lines about each request (incoming, completed, route not found) at `info` when the operator asks for them
 * (LOG_REQUESTS=true), else at `debug`, so the default log holds what happened to payments and money, not traffic.
 * Failed requests are still logged as errors.
 */
export class RequestLines extends LogController {
  private readonly level: 'info' | 'debug';

  constructor(logRequests: boolean) {
    super();
    this.level = logRequests ? 'info' : 'debug';
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log[this.level]({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log[this.level]({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }

  /**
   * A client that went away while a streamed answer (an event stream, an export) was being written is traffic, not
   * trouble: said with the request lines. Any other stream failure stays a warning.
   */
  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE')
      reply.log[this.level]({ res: reply }, 'stream closed prematurely');
    else reply.log.warn({ err: error }, 'response terminated with an error with headers already sent');
  }

  override routeNotFound(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log[this.level](`Route ${request.raw.method}:${redactedUrl(request.raw.url ?? '')} not found`);
  }
}
