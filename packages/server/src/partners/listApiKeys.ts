import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { ApiKeyView, toApiKeyView } from './apiKeyResource.ts';

/** The partner's API keys, newest first, revoked ones included. */
export function registerListApiKeys(app: App, ctx: AppContext): void {
  app.get(
    '/v1/api-keys',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['api keys'],
        summary: "List the partner's API keys",
        description: 'Every key of the partner with its scopes, newest first; never a key itself, only its prefix.',
        response: { 200: Type.Object({ data: Type.Array(ApiKeyView) }), ...errorResponses() },
      },
    },
    async (request) => {
      const keys = await ctx.db
        .selectFrom('api_keys')
        .selectAll()
        .where('partner_id', '=', principalOf(request).partnerId)
        .orderBy('id', 'desc')
        .execute();
      return { data: keys.map(toApiKeyView) };
    },
  );
}
