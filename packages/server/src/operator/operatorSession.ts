import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { passesCsrfCheck } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { operatorSessionOf, type StartedSession } from '../dashboard/sessions.ts';

/** The operator console's cookie: sent only to its own paths, never beside a partner's dashboard cookie. */
export const OPERATOR_COOKIE = 'paygate_operator';
const COOKIE_PATH = '/operator';

export interface OperatorSession {
  id: string;
  csrfToken: string;
  expiresAt: Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    operatorSession: OperatorSession | undefined;
  }
}

function cookieOptions(ctx: AppContext) {
  return {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: ctx.config.baseUrl.startsWith('https:'),
  };
}

export function setOperatorCookie(ctx: AppContext, reply: FastifyReply, session: StartedSession): void {
  reply.setCookie(OPERATOR_COOKIE, session.secret, { ...cookieOptions(ctx), expires: session.expiresAt });
}

export function clearOperatorCookie(ctx: AppContext, reply: FastifyReply): void {
  reply.clearCookie(OPERATOR_COOKIE, cookieOptions(ctx));
}

/**
 * The operator's session of the request's cookie, read afresh from the database on every request (the console's
 * traffic is small, and an ended session stops at once in every process); a change also needs its CSRF token.
 */
export async function authenticateOperator(ctx: AppContext, request: FastifyRequest): Promise<OperatorSession> {
  const cookie = request.cookies[OPERATOR_COOKIE];
  if (!cookie) throw new ApiError('invalid_session', 'No operator session: open a link from paygate operator-link.');
  const row = await operatorSessionOf(ctx.db, cookie, ctx.clock.now());
  if (!row) throw new ApiError('invalid_session');
  if (!passesCsrfCheck(request, row.csrf_token)) throw new ApiError('invalid_csrf_token');
  return { id: row.id, csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

/** The operator session a route of the console's API was authenticated with. */
export function operatorSessionOfRequest(request: FastifyRequest): OperatorSession {
  if (!request.operatorSession) throw new Error(`route ${request.routeOptions.url} is not an operator route`);
  return request.operatorSession;
}
