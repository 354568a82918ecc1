import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { hashApiKey } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { setSessionCookie, SessionView, toSessionView } from './sessionCookie.ts';
import { startSession } from './sessions.ts';

const SignInBody = Type.Object(
  { apiKey: Type.String({ minLength: 1, maxLength: 256, description: 'An API key of the partner' }) },
  { additionalProperties: false },
);

/**
 * Signs in to the dashboard with an API key: the session acts for the key's partner with the key's scopes, and no
 * more, until it expires, is ended, or the key is revoked. Every attempt counts against the address's sign-in limit.
 */
export function registerSignIn(app: App, ctx: AppContext): void {
  app.post(
    '/dashboard/api/session',
    {
      schema: {
        tags: ['dashboard'],
        summary: 'Sign in to the dashboard with an API key',
        description:
          "Sets the session's cookie (HttpOnly, SameSite=Strict, Secure over https) and answers its CSRF token. Sign-in attempts per address are limited (DASHBOARD_SIGN_IN_MAX per DASHBOARD_SIGN_IN_WINDOW_MS): more are refused with 429 rate_limited.",
        body: SignInBody,
        response: { 201: SessionView, ...errorResponses() },
      },
    },
    async (request, reply) => {
      await new Promise<void>((resolve, reject) =>
        ctx.signInLimiter.hitAll(
          [{ key: `dashboard-sign-in:${request.ip}`, max: ctx.signInLimiter.max }],
          reply,
          (refusal) => (refusal ? reject(refusal) : resolve()),
        ),
      );
      const key = await ctx.credentials.apiKey(hashApiKey(request.body.apiKey));
      if (!key) throw new ApiError('invalid_api_key');
      const session = await startSession(
        ctx.db,
        { partnerId: key.partnerId, keyId: key.keyId, scopes: key.scopes },
        ctx.config.dashboard.sessionMs,
        ctx.clock.now(),
      );
      setSessionCookie(ctx, reply, session);
      return reply.code(201).send(await toSessionView(ctx, { ...session, partnerId: key.partnerId, keyId: key.keyId }));
    },
  );
}
