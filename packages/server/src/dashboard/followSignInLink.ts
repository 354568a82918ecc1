import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App, AppContext } from '../context.ts';
import type { ConsoleAudience } from '../db/schema.ts';
import { setSessionCookie } from './sessionCookie.ts';
import { type StartedSession, spendSignInLink, useSignInLink } from './sessions.ts';

const LinkParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) });

/**
 * A console's one-time sign-in link at `<home>/link/:token`: the first visit before it expires signs in (with its
 * console's cookie) and goes to `home`; any other visit goes to the console's sign-in page, which says the link is
 * spent. A link made for the other console is spent here.
 */
export function registerFollowConsoleLink(
  app: App,
  ctx: AppContext,
  target: {
    home: '/dashboard' | '/operator';
    audience: ConsoleAudience;
    summary: string;
    setCookie: (ctx: AppContext, reply: FastifyReply, session: StartedSession) => void;
  },
): void {
  spendStrayLinks(app, ctx, target.home);
  app.get(
    `${target.home}/link/:token`,
    {
      schema: {
        tags: [target.home.slice(1)],
        summary: target.summary,
        params: LinkParams,
        response: {
          303: { type: 'null', description: 'To the target, or to its sign-in page when the link is spent' },
        },
      },
    },
    async (request, reply) => {
      const session = await useSignInLink(
        ctx.db,
        request.params.token,
        target.audience,
        ctx.config.dashboard.sessionMs,
        ctx.clock.now(),
      );
      if (!session) return reply.redirect(`${target.home}/sign-in?link=spent`, 303);
      target.setCookie(ctx, reply, session);
      return reply.redirect(target.home, 303);
    },
  );
}

/**
 * A link token reached in any other shape than `GET <home>/link/<token>` (another method, more path after it, doubled
 * slashes) is spent and signs in nowhere: whoever could have read such a request, in a log or a proxy, holds nothing.
 */
function spendStrayLinks(app: App, ctx: AppContext, home: string): void {
  const strayLink = new RegExp(`^/+${home.slice(1)}/+link/+([^/?#]+)`);
  const exactLink = new RegExp(`^${home}/link/[^/?#]+(\\?.*)?$`);
  app.addHook('onRequest', async (request, reply) => {
    const token = strayLink.exec(request.url)?.[1];
    if (token === undefined) return;
    if ((request.method === 'GET' || request.method === 'HEAD') && exactLink.test(request.url)) return;
    await spendSignInLink(ctx.db, decodedSegment(token), ctx.clock.now());
    return reply.redirect(`${home}/sign-in?link=spent`, 303);
  });
}

/** A path segment as the router would hand it to a route: percent-decoded, or as sent when it does not decode. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** `paygate dashboard-link`: signs in to the partner's dashboard with every scope of the partner. */
export function registerFollowSignInLink(app: App, ctx: AppContext): void {
  registerFollowConsoleLink(app, ctx, {
    home: '/dashboard',
    audience: 'partner',
    summary: 'Sign in to the dashboard with a one-time link',
    setCookie: setSessionCookie,
  });
}
