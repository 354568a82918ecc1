import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { currentSession, SessionView, toSessionView } from './sessionCookie.ts';

/** The dashboard's session of the request's cookie, so a page loaded later knows who it acts for. */
export function registerShowSession(app: App, ctx: AppContext): void {
  app.get(
    '/dashboard/api/session',
    {
      schema: {
        tags: ['dashboard'],
        summary: "The dashboard session of the request's cookie",
        response: { 200: SessionView, ...errorResponses() },
      },
    },
    async (request) => toSessionView(ctx, (await currentSession(ctx, request)).session),
  );
}
