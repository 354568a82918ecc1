import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { setSessionCookie } from './sessionCookie.ts';
import { useSignInLink } from './sessions.ts';

const LinkParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) });

/**
 * A one-time sign-in link (`paygate dashboard-link`): the first visit before it expires signs in with every scope of
 * its partner and goes to the dashboard; any other visit goes to the sign-in page, which says the link is spent.
 */
export function registerFollowSignInLink(app: App, ctx: AppContext): void {
  app.get(
    '/dashboard/link/:token',
    {
      schema: {
        tags: ['dashboard'],
        summary: 'Sign in to the dashboard with a one-time link',
        params: LinkParams,
        response: { 303: { type: 'null', description: 'To the dashboard, or to sign-in when the link is spent' } },
      },
    },
    async (request, reply) => {
      const session = await useSignInLink(
        ctx.db,
        request.params.token,
        'partner',
        ctx.config.dashboard.sessionMs,
        ctx.clock.now(),
      );
      if (!session) return reply.redirect('/dashboard/sign-in?link=spent', 303);
      setSessionCookie(ctx, reply, session);
      return reply.redirect('/dashboard', 303);
    },
  );
}
