import type { App, AppContext } from '../context.ts';
import { passesCsrfCheck } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { clearSessionCookie, currentSession } from './sessionCookie.ts';
import { endSession } from './sessions.ts';

/** Signs out: the session ends for good (its cookie signs nothing in again) and the cookie is cleared. */
export function registerSignOut(app: App, ctx: AppContext): void {
  app.delete(
    '/dashboard/api/session',
    {
      schema: {
        tags: ['dashboard'],
        summary: 'Sign out of the dashboard',
        description: "Needs the session's CSRF token in X-CSRF-Token, as every change a session makes.",
        response: { 204: { type: 'null', description: 'Signed out' }, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const { session, hash } = await currentSession(ctx, request);
      if (!passesCsrfCheck(request, session.csrfToken)) throw new ApiError('invalid_csrf_token');
      await endSession(ctx.db, session.sessionId, ctx.clock.now());
      ctx.credentials.forgetSession(hash);
      clearSessionCookie(ctx, reply);
      return reply.code(204).send();
    },
  );
}
