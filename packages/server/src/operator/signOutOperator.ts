import type { App, AppContext } from '../context.ts';
import { endSession } from '../dashboard/sessions.ts';
import { errorResponses } from '../http/schemas.ts';
import { clearOperatorCookie, operatorSessionOfRequest } from './operatorSession.ts';

/** Signs the operator out: the session ends for good and the cookie is cleared. */
export function registerSignOutOperator(app: App, ctx: AppContext): void {
  app.delete(
    '/operator/api/session',
    {
      schema: {
        tags: ['operator'],
        summary: 'Sign out of the operator console',
        response: { 204: { type: 'null', description: 'Signed out' }, ...errorResponses() },
      },
    },
    async (request, reply) => {
      await endSession(ctx.db, operatorSessionOfRequest(request).id, ctx.clock.now());
      clearOperatorCookie(ctx, reply);
      return reply.code(204).send();
    },
  );
}
