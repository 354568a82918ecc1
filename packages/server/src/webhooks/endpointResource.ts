import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { WebhookEndpointsTable } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { Nullable } from '../http/schemas.ts';
import { EVENT_TYPES, TEST_EVENT_TYPE } from './events.ts';

export const EventTypeSchema = Type.Union(EVENT_TYPES.map((type) => Type.Literal(type)));

export const RecordedEventTypeSchema = Type.Union(
  [...EVENT_TYPES, TEST_EVENT_TYPE].map((type) => Type.Literal(type)),
  {
    description:
      'A type an endpoint subscribes to, or `webhook.test`: sent only when asked for with ' +
      '`POST /v1/webhooks/{id}/test-events`, to that endpoint alone',
  },
);

const endpointFields = {
  id: Type.String({ description: 'Webhook endpoint id, prefix `whk_`' }),
  url: Type.String({ description: 'HTTPS URL that receives the events' }),
  events: Type.Array(EventTypeSchema, { description: 'Event types sent to this endpoint' }),
  merchantId: Nullable(
    Type.String({ description: 'Only events of this merchant; null for every merchant of the account' }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
};

export const WebhookEndpoint = Type.Object(endpointFields, { $id: 'WebhookEndpoint' });

export const WebhookEndpointParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export function toWebhookEndpoint(row: Selectable<WebhookEndpointsTable>) {
  return {
    id: row.id,
    url: row.url,
    events: row.events as (typeof EVENT_TYPES)[number][],
    merchantId: row.merchant_id,
    createdAt: row.created_at.toISOString(),
  };
}

/** The partner's live endpoint; another partner's endpoint is reported exactly like a missing one (D2). */
export async function endpointOfPartner(db: Db, partnerId: string, endpointId: string) {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', endpointId)
    .where('partner_id', '=', partnerId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw ApiError.notFound(`Webhook endpoint ${endpointId.slice(0, 64)} not found.`);
  return row;
}
