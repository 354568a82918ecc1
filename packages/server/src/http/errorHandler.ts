import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { validationIssues } from './validation.ts';
import { echoedVersion } from './versions.ts';

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
  request.log.error({ err: error }, 'unexpected error');
  return new ApiError('internal_error', undefined, {
    requestId: request.id,
  });
}

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply: FastifyReply) => {
    const apiError = toApiError(error, request);
    // Refused before the request hooks ran (an unparsable URL, say): the response still names a version (D3).
    if (!reply.hasHeader('pay-version')) reply.header('pay-version', echoedVersion(request.headers));
    if (apiError.status === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
    return reply.status(apiError.status).type('application/json; charset=utf-8').send(errorBody(apiError));
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .type('application/json; charset=utf-8')
      .send(errorBody(new ApiError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`))),
  );
}
