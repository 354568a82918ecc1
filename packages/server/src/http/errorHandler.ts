import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/databaseUnavailable.ts';
import { CollectorJournalBehindError } from '../chains/collectorJournalBehind.ts';
import { NetworkFeeShortfallError } from '../ledger/ledger.ts';
import { AccountBlockedError, ScreeningUnavailableError } from '../screening/addressScreening.ts';
import { ApiError } from './errors.ts';
import { validationIssues } from './validation.ts';
import type { RouteMethods } from './routeMethods.ts';
import { echoedVersion, nameVersion, REFERENCE_VERSION } from './versions.ts';

/** A restarting PostgreSQL is back within seconds; a client asking sooner only adds load. */
const DATABASE_RETRY_AFTER_SECONDS = 5;
/** A screening provider that did not answer is usually back within seconds. */
const SCREENING_RETRY_AFTER_SECONDS = 10;

/** Fastify's longest path parameter; a longer one cannot be an id of ours. */
export const MAX_PARAM_LENGTH = 100;

function errorBody(error: ApiError) {
  return {
    message: error.message,
    code: error.code,
    ...(error.details ? { details: error.details } : {}),
    ...(error.issues ? { issues: error.issues } : {}),
  };
}

/** Maps anything thrown during a request to an ApiError, never exposing internals. */
export function toApiError(error: unknown, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError.validation) {
    const withoutKey = fastifyError.validation.some(
      (issue) => (issue.params as { missingProperty?: unknown }).missingProperty === 'idempotency-key',
    );
    if (fastifyError.validationContext === 'headers' && withoutKey) return new ApiError('missing_idempotency_key');
    return ApiError.validation(validationIssues(fastifyError.validation, fastifyError.validationContext));
  }
  // Text PostgreSQL cannot store (a NUL byte, an invalid encoding) is bad input, not a server fault.
  const databaseCode = (error as { code?: unknown }).code;
  if (databaseCode === '22021' || databaseCode === '22P05') {
    return new ApiError(
      'invalid_params',
      'The request contains text that cannot be stored (for example a NUL character).',
    );
  }
  const status = fastifyError.statusCode;
  if (fastifyError.code === 'FST_ERR_BAD_URL') return new ApiError('invalid_params', 'The URL is not valid.');
  if (fastifyError.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new ApiError('invalid_params', `A path segment is longer than ${MAX_PARAM_LENGTH} characters.`, undefined, {
      status: 414,
    });
  }
  if (status === 413)
    return new ApiError('invalid_params', 'The request body is too large.', undefined, { status: 413 });
  if (status === 429) return new ApiError('rate_limited');
  if (status === 415) return new ApiError('invalid_params', 'Send the request body as application/json.');
  if (status !== undefined && status >= 400 && status < 500) {
    const message =
      fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
        ? 'The request body is not valid JSON.'
        : fastifyError.code?.startsWith('FST_ERR_CTP')
          ? 'The request body could not be read as application/json.'
          : 'The request is not valid.';
    return new ApiError('invalid_params', message);
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn(`database unavailable: ${(error as Error).message}`);
    return new ApiError(
      'service_unavailable',
      'The service cannot reach its database right now; try again shortly.',
      undefined,
      { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
    );
  }
  if (error instanceof AccountBlockedError) {
    request.log.warn(error.message);
    return new ApiError('account_blocked', undefined, { account: error.account });
  }
  if (error instanceof ScreeningUnavailableError) {
    // Screening fails closed (SCREENING_ON_FAILURE): nothing goes on unscreened, and the caller may try again.
    return new ApiError(
      'service_unavailable',
      'The service cannot screen the accounts right now; try again shortly.',
      { reason: 'screening_unavailable' },
      { retryAfterSeconds: SCREENING_RETRY_AFTER_SECONDS },
    );
  }
  if (error instanceof NetworkFeeShortfallError) {
    // The operator's to fix (fund the network's native coin); the caller only learns that it must wait.
    request.log.warn(error.message);
    return new ApiError(
      'service_unavailable',
      'The service cannot pay the network fee of this transaction right now; try again later.',
      { reason: 'network_fee_unfunded', asset: error.asset },
    );
  }
  if (error instanceof CollectorJournalBehindError) {
    // Logged once, at error, by the relayer; the operator's to reconcile (README, Backups).
    return new ApiError(
      'service_unavailable',
      'The service cannot send transactions on this network right now; try again later.',
      { reason: 'collector_journal_behind', network: error.chain },
    );
  }
  request.log.error({ err: error }, 'unexpected error');
  return new ApiError('internal_error', undefined, {
    requestId: request.id,
  });
}

/** Answers anything thrown with the error body; also what Fastify refuses before routing (a bad URL). */
export function replyWithError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const apiError = toApiError(error, request);
  // Refused before the request hooks ran (an unparsable URL, say): the response still names a version (D3).
  if (!reply.hasHeader('pay-version')) nameVersion(reply, echoedVersion(request.headers));
  if (!reply.hasHeader('request-id')) reply.header('request-id', request.id);
  if (apiError.retryAfterSeconds !== undefined && !reply.hasHeader('retry-after'))
    reply.header('retry-after', String(apiError.retryAfterSeconds));
  return reply.status(apiError.status).type('application/json; charset=utf-8').send(errorBody(apiError));
}

const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time.' },
  HPE_HEADER_OVERFLOW: { status: 431, message: 'The request headers are too large.' },
};
const MALFORMED_REQUEST = {
  status: 400,
  message: 'The request is not valid HTTP (for example a control character in a header).',
};

/**
 * A request Node's HTTP parser refuses (a control character in a header, headers too large, too slow) never
 * reaches Fastify: it is answered here on the socket, still with the error body, and the connection closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED_REQUEST;
  const body = JSON.stringify(errorBody(new ApiError('invalid_params', message, undefined, { status })));
  // As Node does: no answer after a response already under way on this socket (one refused before its body came).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `pay-version: ${REFERENCE_VERSION}\r\n` +
        `wcp-version: ${REFERENCE_VERSION}\r\n` +
        'connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}

export function registerErrorHandlers(app: FastifyInstance, routeMethods: RouteMethods): void {
  routeMethods.track(app);
  app.setErrorHandler(replyWithError);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routeMethods.allowed(path);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return replyWithError(
        new ApiError('method_not_allowed', `${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`),
        request,
        reply,
      );
    }
    return replyWithError(new ApiError('not_found', `No route for ${request.method} ${path}.`), request, reply);
  });
}
