import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { operatorSessionOfRequest } from './operatorSession.ts';

export const OperatorSessionView = Type.Object({
  csrfToken: Type.String({ description: 'Send it in the X-CSRF-Token header with every change' }),
  expiresAt: Type.String({ description: 'ISO 8601 timestamp' }),
});

/** The operator's session of the request's cookie, so a page loaded later knows it is signed in. */
export function registerShowOperatorSession(app: App, _ctx: AppContext): void {
  app.get(
    '/operator/api/session',
    {
      schema: {
        tags: ['operator'],
        summary: "The operator console's session",
        response: { 200: OperatorSessionView, ...errorResponses() },
      },
    },
    async (request) => {
      const session = operatorSessionOfRequest(request);
      return { csrfToken: session.csrfToken, expiresAt: session.expiresAt.toISOString() };
    },
  );
}
