import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { ApiKeyView, requireScopesHeld, ScopeName, toApiKeyView } from './apiKeyResource.ts';
import { createApiKey } from './partners.ts';

const CreateApiKeyBody = Type.Object(
  { scopes: Type.Array(ScopeName, { minItems: 1, maxItems: 8, uniqueItems: true }) },
  { additionalProperties: false },
);

const CreatedApiKey = Type.Object({
  ...ApiKeyView.properties,
  apiKey: Type.String({ description: 'The key, shown this once: only its hash is kept' }),
});

/**
 * Makes an API key of the partner with scopes the caller holds. The key is answered once and kept only hashed, so
 * this route takes no Idempotency-Key: a stored answer would keep the key; a retry makes another, which can be
 * revoked.
 */
export function registerCreateApiKey(app: App, ctx: AppContext): void {
  app.post(
    '/v1/api-keys',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['api keys'],
        summary: 'Create an API key',
        description:
          'A new key of the partner with the given scopes, each of which the caller must hold itself (403 forbidden otherwise). The key is in the answer once.',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKey, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      requireScopesHeld(principal, request.body.scopes);
      const { keyId, apiKey } = await createApiKey(ctx.db, principal.partnerId, request.body.scopes);
      const row = await ctx.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
      return reply.code(201).send({ ...toApiKeyView(row), apiKey });
    },
  );
}
