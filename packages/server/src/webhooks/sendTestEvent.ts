import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { WebhookEndpointParams } from './endpointResource.ts';
import { recordEvent, TEST_EVENT_TYPE } from './events.ts';

const TEST_EVENT_MESSAGE = 'A test event from paygate';

const SendTestEventBody = Type.Object({}, { additionalProperties: false });

const ScheduledTestEvent = Type.Object({
  eventId: Type.String({ description: 'Event id, prefix `evt_`, of type `webhook.test`' }),
  deliveryId: Type.String({ description: 'Delivery id, as in the deliveries log' }),
});

export function registerSendTestEvent(app: App, ctx: AppContext): void {
  app.post(
    '/v1/webhooks/:id/test-events',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Send a test event to an endpoint',
        description:
          'Records a `webhook.test` event, whose `data.object` names the endpoint, and schedules its delivery to this ' +
          'endpoint only, whatever events it subscribes to: it is signed, retried and listed among the deliveries ' +
          'like any event. No endpoint subscribes to `webhook.test`; it is sent only when asked for here.',
        params: WebhookEndpointParams,
        body: SendTestEventBody,
        response: { 202: ScheduledTestEvent, ...errorResponses(404) },
      },
      // The body is optional: there is nothing to say.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const { partnerId } = principalOf(request);
      const scheduled = await ctx.db.transaction().execute(async (trx) => {
        // Held until commit, so the endpoint cannot be deleted between this check and its delivery being written.
        const endpoint = await trx
          .selectFrom('webhook_endpoints')
          .select(['id', 'url'])
          .where('id', '=', request.params.id)
          .where('partner_id', '=', partnerId)
          .where('deleted_at', 'is', null)
          .forShare()
          .executeTakeFirst();
        if (!endpoint) throw ApiError.notFound(`Webhook endpoint ${request.params.id.slice(0, 64)} not found.`);
        const eventId = await recordEvent(trx, {
          partnerId,
          merchantId: null,
          type: TEST_EVENT_TYPE,
          object: { endpointId: endpoint.id, url: endpoint.url, message: TEST_EVENT_MESSAGE },
          onlyToEndpointId: endpoint.id,
        });
        const delivery = await trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('event_id', '=', eventId)
          .executeTakeFirstOrThrow();
        return { eventId, deliveryId: delivery.id };
      });
      return reply.status(202).send(scheduled);
    },
  );
}
