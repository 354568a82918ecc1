import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from '../payments/merchantHeader.ts';
import { PaymentIdParams, paymentOfRequest } from '../payments/paymentLookup.ts';

/** A payment has a handful of events; a bound all the same. */
const MAX_EVENTS = 200;

const PaymentEvent = Type.Object({
  id: Type.String({ description: 'Event id, prefix `evt_`' }),
  type: Type.String({ description: 'The event type, as webhooks send it' }),
  createdAt: Type.String({ format: 'date-time' }),
  deliveries: Type.Array(
    Type.Object({
      deliveryId: Type.String(),
      endpointId: Type.String(),
      url: Type.String({ description: "The endpoint's URL" }),
      status: Type.Union([
        Type.Literal('pending'),
        Type.Literal('succeeded'),
        Type.Literal('failed'),
        Type.Literal('cancelled'),
      ]),
      attempts: Type.Integer({ minimum: 0 }),
      redelivery: Type.Boolean({ description: 'Whether the delivery was asked for with redeliver' }),
      completedAt: Nullable(Type.String({ format: 'date-time' })),
    }),
    { description: 'Its deliveries to the endpoints subscribed to it, in the order they were made' },
  ),
});

/**
 * A payment's timeline: the events about it and its refunds, oldest first, each with its deliveries to the partner's
 * endpoints, so what the partner's systems were told, and whether they took it, shows beside the payment.
 */
export function registerListPaymentEvents(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payments/:id/events',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['webhooks'],
        summary: "A payment's events and their webhook deliveries",
        description:
          'The events about the payment and its refunds, oldest first (at most 200), each with its deliveries to the endpoints subscribed to it. An event can be sent again with POST /v1/events/{id}/redeliver.',
        headers: MerchantIdHeader,
        params: PaymentIdParams,
        response: { 200: Type.Object({ data: Type.Array(PaymentEvent) }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { payment } = await paymentOfRequest(ctx, request, request.params.id);
      const events = await ctx.db
        .selectFrom('webhook_events')
        .select(['id', 'type', 'created_at'])
        .where('payment_id', '=', payment.id)
        .where('partner_id', '=', payment.partner_id)
        .orderBy('created_at')
        .orderBy('id')
        .limit(MAX_EVENTS)
        .execute();
      const deliveries =
        events.length === 0
          ? []
          : await ctx.db
              .selectFrom('webhook_deliveries as delivery')
              .innerJoin('webhook_endpoints as endpoint', 'endpoint.id', 'delivery.endpoint_id')
              .select([
                'delivery.id',
                'delivery.event_id',
                'delivery.endpoint_id',
                'endpoint.url',
                'delivery.status',
                'delivery.attempts',
                'delivery.redelivery',
                'delivery.completed_at',
              ])
              .where(
                'delivery.event_id',
                'in',
                events.map((event) => event.id),
              )
              .orderBy('delivery.id')
              .execute();
      return {
        data: events.map((event) => ({
          id: event.id,
          type: event.type,
          createdAt: event.created_at.toISOString(),
          deliveries: deliveries
            .filter((delivery) => delivery.event_id === event.id)
            .map((delivery) => ({
              deliveryId: delivery.id,
              endpointId: delivery.endpoint_id,
              url: delivery.url,
              status: delivery.status,
              attempts: delivery.attempts,
              redelivery: delivery.redelivery,
              completedAt: delivery.completed_at?.toISOString() ?? null,
            })),
        })),
      };
    },
  );
}
