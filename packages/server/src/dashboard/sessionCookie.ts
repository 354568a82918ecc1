import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import { hashApiKey, SESSION_COOKIE } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { Nullable } from '../http/schemas.ts';
import { partnerNameOf } from '../partners/partners.ts';
import type { StartedSession } from './sessions.ts';

/** What the dashboard learns of its session: who it acts for, with which scopes, and the token its changes send. */
export const SessionView = Type.Object({
  partnerId: Type.String(),
  partnerName: Type.String({ description: 'The name of the partner the session acts for, as the dashboard shows it' }),
  keyId: Nullable(
    Type.String({ description: 'The API key the session signed in with; null when it signed in with a one-time link' }),
  ),
  scopes: Type.Array(Type.String()),
  csrfToken: Type.String({ description: 'Send it in the X-CSRF-Token header with every change the session makes' }),
  expiresAt: Type.String({ description: 'ISO 8601 timestamp' }),
});

export async function toSessionView(
  ctx: AppContext,
  session: {
    partnerId: string;
    keyId: string | null;
    scopes: string[];
    csrfToken: string;
    expiresAt: Date;
  },
) {
  return {
    partnerId: session.partnerId,
    partnerName: (await partnerNameOf(ctx.db, session.partnerId)) ?? session.partnerId,
    keyId: session.keyId,
    scopes: session.scopes,
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt.toISOString(),
  };
}

/**
 * The session's cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure
 * when the service is served over https, and gone when the session expires.
 */
export function setSessionCookie(ctx: AppContext, reply: FastifyReply, session: StartedSession): void {
  reply.setCookie(SESSION_COOKIE, session.secret, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.config.baseUrl.startsWith('https:'),
    expires: session.expiresAt,
  });
}

export function clearSessionCookie(ctx: AppContext, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.config.baseUrl.startsWith('https:'),
  });
}

/** The request's session while it may act, with its cookie's hash; 401 `invalid_session` otherwise. */
export async function currentSession(ctx: AppContext, request: FastifyRequest) {
  const cookie = request.cookies[SESSION_COOKIE];
  if (!cookie) throw new ApiError('invalid_session', 'No dashboard session: sign in first.');
  const hash = hashApiKey(cookie);
  const session = await ctx.credentials.session(hash);
  if (!session) throw new ApiError('invalid_session');
  return { session, hash };
}
