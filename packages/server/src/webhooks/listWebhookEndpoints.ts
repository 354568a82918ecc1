import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { toWebhookEndpoint, WebhookEndpoint } from './endpointResource.ts';

export function registerListWebhookEndpoints(app: App, ctx: AppContext): void {
  app.get(
    '/v1/webhooks',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['webhooks'],
        summary: "List the account's webhook endpoints, newest first (secrets are never shown again)",
        response: { 200: Type.Object({ data: Type.Array(WebhookEndpoint) }), ...errorResponses() },
      },
    },
    async (request) => {
      const rows = await ctx.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('partner_id', '=', principalOf(request).partnerId)
        .where('deleted_at', 'is', null)
        .orderBy('id', 'desc')
        .execute();
      return { data: rows.map(toWebhookEndpoint) };
    },
  );
}
