import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { ApiKeyView, requireScopesHeld, toApiKeyView } from './apiKeyResource.ts';

const KeyIdParams = Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * Revokes one of the partner's keys (one whose scopes the caller holds): it stops at once in this process and within
 * AUTH_CACHE_TTL_MS in the others, and so does every dashboard session signed in with it. Revoking it again answers
 * the same.
 */
export function registerRevokeApiKey(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/api-keys/:keyId',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['api keys'],
        summary: 'Revoke an API key',
        params: KeyIdParams,
        response: { 200: ApiKeyView, ...errorResponses(404) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const key = await ctx.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', request.params.keyId)
        .where('partner_id', '=', principal.partnerId)
        .executeTakeFirst();
      if (!key) throw ApiError.notFound(`API key ${request.params.keyId} not found.`);
      requireScopesHeld(principal, key.scopes);
      const revoked =
        (await ctx.db
          .updateTable('api_keys')
          .set({ revoked_at: ctx.clock.now() })
          .where('id', '=', key.id)
          .where('revoked_at', 'is', null)
          .returningAll()
          .executeTakeFirst()) ?? key;
      ctx.credentials.forgetApiKey(key.secret_hash, key.id);
      return toApiKeyView(revoked);
    },
  );
}
