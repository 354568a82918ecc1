import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { useSignInLink } from '../dashboard/sessions.ts';
import { setOperatorCookie } from './operatorSession.ts';

const LinkParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) });

/**
 * A one-time operator link (`paygate operator-link`): the first visit before it expires signs in to the operator
 * console; any other visit goes to its sign-in page, which says the link is spent.
 */
export function registerFollowOperatorLink(app: App, ctx: AppContext): void {
  app.get(
    '/operator/link/:token',
    {
      schema: {
        tags: ['operator'],
        summary: 'Sign in to the operator console with a one-time link',
        params: LinkParams,
        response: {
          303: { type: 'null', description: 'To the console, or to its sign-in page when the link is spent' },
        },
      },
    },
    async (request, reply) => {
      const session = await useSignInLink(
        ctx.db,
        request.params.token,
        'operator',
        ctx.config.dashboard.sessionMs,
        ctx.clock.now(),
      );
      if (!session) return reply.redirect('/operator/sign-in?link=spent', 303);
      setOperatorCookie(ctx, reply, session);
      return reply.redirect('/operator', 303);
    },
  );
}
