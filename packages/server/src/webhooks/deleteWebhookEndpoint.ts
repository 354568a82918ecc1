import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { WebhookEndpointParams } from './endpointResource.ts';

export function registerDeleteWebhookEndpoint(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/webhooks/:id',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint; pending deliveries to it are dropped',
        params: WebhookEndpointParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      // Kept as deleted rather than removed, so the events and attempt log that reference it stay intact.
      const deleted = await ctx.db
        .updateTable('webhook_endpoints')
        .set({ deleted_at: ctx.clock.now() })
        .where('id', '=', request.params.id)
        .where('partner_id', '=', principalOf(request).partnerId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (!deleted.numUpdatedRows)
        throw ApiError.notFound(`Webhook endpoint ${request.params.id.slice(0, 64)} not found.`);
      return reply.status(204).send(null);
    },
  );
}
