import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { endpointOfPartner } from './endpointResource.ts';
import { requireEventTypesReadable } from './eventScopes.ts';
import type { RecordedEventType } from './events.ts';
import { scheduleDeliveryAttempt } from './schedule.ts';

const RedeliverParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const RedeliverBody = Type.Object(
  {
    endpointId: Type.Optional(
      Type.String({ maxLength: 64, description: 'Only to this endpoint (any of the account)' }),
    ),
  },
  { additionalProperties: false },
);

const ScheduledDeliveries = Type.Object({
  deliveries: Type.Array(
    Type.Object({
      id: Type.String({ description: 'Delivery id, as in the deliveries log' }),
      endpointId: Type.String(),
    }),
  ),
});

export function registerRedeliverEvent(app: App, ctx: AppContext): void {
  app.post(
    '/v1/events/:id/redeliver',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Deliver an event again',
        description:
          'Schedules a new delivery of the event to the endpoints it was sent to (those not deleted since), or to the one ' +
          'endpoint given. Redeliveries do not wait for older events, and the body is the same as the first time. While ' +
          'a redelivery to an endpoint waits, asking again answers that one instead of scheduling another. ' +
          "An event of a type the key's scopes do not read (payment and refund events need `payments`) is 403 forbidden.",
        params: RedeliverParams,
        body: RedeliverBody,
        response: { 202: ScheduledDeliveries, ...errorResponses(404) },
      },
      // The body is optional: no body means every endpoint, as `{}` does.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { partnerId } = principal;
      const event = await ctx.db
        .selectFrom('webhook_events')
        .select(['id', 'type'])
        .where('id', '=', request.params.id)
        .where('partner_id', '=', partnerId)
        .executeTakeFirst();
      if (!event) throw ApiError.notFound(`Event ${request.params.id.slice(0, 64)} not found.`);
      requireEventTypesReadable(principal, [event.type as RecordedEventType]);
      const { endpointId } = request.body;
      const endpointIds =
        endpointId !== undefined
          ? [(await endpointOfPartner(ctx.db, partnerId, endpointId)).id]
          : (
              await ctx.db
                .selectFrom('webhook_deliveries as delivery')
                .innerJoin('webhook_endpoints as endpoint', 'endpoint.id', 'delivery.endpoint_id')
                .select('endpoint.id')
                .distinct()
                .where('delivery.event_id', '=', event.id)
                .where('endpoint.deleted_at', 'is', null)
                .orderBy('endpoint.id')
                .execute()
            ).map((row) => row.id);
      const deliveries = await ctx.db.transaction().execute(async (trx) => {
        if (endpointIds.length === 0) return [];
        // One waiting redelivery per endpoint: asked again meanwhile, the request gets the one already waiting.
        const created = await trx
          .insertInto('webhook_deliveries')
          .values(endpointIds.map((id) => ({ event_id: event.id, endpoint_id: id, redelivery: true })))
          .onConflict((conflict) =>
            conflict
              .columns(['event_id', 'endpoint_id'])
              .where('redelivery', '=', true)
              .where('status', '=', 'pending')
              .doNothing(),
          )
          .returning(['id', 'endpoint_id'])
          .execute();
        for (const row of created) await scheduleDeliveryAttempt(trx, { id: row.id, endpointId: row.endpoint_id });
        const waiting = await trx
          .selectFrom('webhook_deliveries')
          .select(['id', 'endpoint_id'])
          .where('event_id', '=', event.id)
          .where('endpoint_id', 'in', endpointIds)
          .where('redelivery', '=', true)
          .where('status', '=', 'pending')
          .orderBy('endpoint_id')
          .execute();
        return waiting.map((row) => ({ id: row.id, endpointId: row.endpoint_id }));
      });
      return reply.status(202).send({ deliveries });
    },
  );
}
