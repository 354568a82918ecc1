import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { endpointOfPartner, RecordedEventTypeSchema, WebhookEndpointParams } from './endpointResource.ts';
import { readableEventTypes } from './eventScopes.ts';
import type { RecordedEventType } from './events.ts';

const ListDeliveriesQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);

const DeliveryAttempt = Type.Object(
  {
    id: Type.String({ description: 'Attempt id' }),
    deliveryId: Type.String({ description: 'The delivery (one event to this endpoint) the attempt belongs to' }),
    eventId: Type.String({ description: 'Event id, prefix `evt_`' }),
    eventType: RecordedEventTypeSchema,
    attempt: Type.Integer({ minimum: 1, description: 'Attempt number within the delivery' }),
    statusCode: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when there was no response" })),
    error: Nullable(Type.String({ description: 'Why there was no response (timeout, refused address, TLS, network)' })),
    durationMs: Type.Integer({ minimum: 0 }),
    outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('will_retry'), Type.Literal('given_up')]),
    redelivery: Type.Boolean({ description: 'Whether the delivery was asked for with redeliver' }),
    attemptedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookDeliveryAttempt' },
);

export function registerListWebhookDeliveries(app: App, ctx: AppContext): void {
  const cursors = ctx.cursors;
  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Delivery attempts to an endpoint, newest first',
        description:
          "Only attempts of events of types the key's scopes read: payment and refund events need `payments`.",
        params: WebhookEndpointParams,
        querystring: ListDeliveriesQuery,
        response: {
          200: Type.Object({ data: Type.Array(DeliveryAttempt), nextCursor: Nullable(Type.String()) }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const endpoint = await endpointOfPartner(ctx.db, principal.partnerId, request.params.id);
      const { limit, cursor } = request.query;
      const queryFingerprint = JSON.stringify(['webhook-deliveries', endpoint.id]);
      const before = cursor === undefined ? undefined : cursors.decode<string>(cursor, queryFingerprint);
      let query = ctx.db
        .selectFrom('webhook_attempts as attempt')
        .innerJoin('webhook_events as event', 'event.id', 'attempt.event_id')
        .innerJoin('webhook_deliveries as delivery', 'delivery.id', 'attempt.delivery_id')
        .select([
          'attempt.id',
          'attempt.delivery_id',
          'attempt.event_id',
          'event.type',
          'attempt.attempt',
          'attempt.status_code',
          'attempt.error',
          'attempt.duration_ms',
          'attempt.outcome',
          'delivery.redelivery',
          'attempt.attempted_at',
        ])
        .where('attempt.endpoint_id', '=', endpoint.id)
        .where('event.type', 'in', readableEventTypes(principal));
      if (before !== undefined) query = query.where(sql<boolean>`attempt.id < ${before}::bigint`);
      const rows = await query
        .orderBy('attempt.id', 'desc')
        .limit(limit + 1)
        .execute();
      const page = cursors.page(rows, limit, queryFingerprint, (row) => row.id);
      return {
        data: page.rows.map((row) => ({
          id: row.id,
          deliveryId: row.delivery_id,
          eventId: row.event_id,
          eventType: row.type as RecordedEventType,
          attempt: row.attempt,
          statusCode: row.status_code,
          error: row.error,
          durationMs: row.duration_ms,
          outcome: row.outcome,
          redelivery: row.redelivery,
          attemptedAt: row.attempted_at.toISOString(),
        })),
        nextCursor: page.nextCursor,
      };
    },
  );
}
