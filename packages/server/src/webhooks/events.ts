import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { scheduleDeliveryAttempt } from './schedule.ts';

export const EVENT_TYPES = [
  'payment.created',
  'payment.processing',
  'payment.succeeded',
  'payment.failed',
  'payment.expired',
  'payment.cancelled',
  'payment.settled',
  'merchant.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  partnerId: string;
  /** The merchant the event is about; endpoints limited to another merchant do not receive it. */
  merchantId: string | null;
  type: EventType;
  /** The resource as the API shows it, placed in `data.object`. */
  object: Record<string, unknown>;
}

/**
 * Records an event and schedules its delivery to every matching endpoint, inside the caller's transaction (D17):
 * the event and its delivery jobs exist exactly when the change that caused them commits. Returns the `evt_` id.
 */
export async function recordEvent(trx: Kysely<Database>, event: NewEvent): Promise<string> {
  const partner = await trx
    .selectFrom('partners')
    .select(['pinned_version', sql<Date>`now()`.as('now')])
    .where('id', '=', event.partnerId)
    .executeTakeFirstOrThrow(() => new Error(`recordEvent: partner ${event.partnerId} does not exist`));
  const id = newId('evt');
  // The body is rendered once so every delivery and redelivery sends, and signs, the same bytes.
  const body = JSON.stringify({
    id,
    type: event.type,
    createdAt: partner.now.toISOString(),
    apiVersion: partner.pinned_version,
    data: { object: event.object },
  });
  await trx
    .insertInto('webhook_events')
    .values({ id, partner_id: event.partnerId, merchant_id: event.merchantId, type: event.type, body, created_at: partner.now })
    .execute();

  const deliveries = await trx
    .insertInto('webhook_deliveries')
    .columns(['event_id', 'endpoint_id'])
    .expression((eb) =>
      eb
        .selectFrom('webhook_endpoints')
        .select([eb.val(id).as('event_id'), 'id'])
        .where('partner_id', '=', event.partnerId)
        .where('deleted_at', 'is', null)
        .where(sql<boolean>`${event.type} = ANY(events)`)
        .where((where) =>
          event.merchantId === null
            ? where('merchant_id', 'is', null)
            : where.or([where('merchant_id', 'is', null), where('merchant_id', '=', event.merchantId)]),
        )
        .orderBy('id'),
    )
    .returning(['id', 'endpoint_id'])
    .execute();
  for (const delivery of deliveries) {
    await scheduleDeliveryAttempt(trx, { id: delivery.id, endpointId: delivery.endpoint_id });
  }
  return id;
}
