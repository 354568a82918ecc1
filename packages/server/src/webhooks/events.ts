import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { firstAttemptJob } from './schedule.ts';

export const EVENT_TYPES = [
  'payment.created',
  'payment.processing',
  'payment.succeeded',
  'payment.failed',
  'payment.expired',
  'payment.cancelled',
  'payment.settled',
  'payment.underpaid',
  'payment.overpaid',
  'payment.paid_late',
  'payment.wrong_token',
  'payment.transfer_refused',
  'merchant.updated',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
] as const;
/** The event types an endpoint can subscribe to. */
export type EventType = (typeof EVENT_TYPES)[number];

/** Sent only when the partner asks, to the one endpoint asked for: not a type an endpoint subscribes to. */
export const TEST_EVENT_TYPE = 'webhook.test';
/** Every type an event is recorded with. */
export type RecordedEventType = EventType | typeof TEST_EVENT_TYPE;

export interface NewEvent {
  partnerId: string;
  /** The merchant the event is about; endpoints limited to another merchant do not receive it. */
  merchantId: string | null;
  type: RecordedEventType;
  /** The resource as the API shows it, placed in `data.object`. */
  object: Record<string, unknown>;
  /**
   * Only to this live endpoint of the partner, whatever events and merchant it is limited to (a test event); without
   * it, to every endpoint subscribed to the type.
   */
  onlyToEndpointId?: string;
}

/** What an event is stamped with: the partner's pinned API version and the database's clock. */
export interface EventStamp {
  apiVersion: string;
  createdAt: Date;
}

async function eventStamp(db: Kysely<Database>, partnerId: string): Promise<EventStamp> {
  const partner = await db
    .selectFrom('partners')
    .select(['pinned_version', sql<Date>`now()`.as('now')])
    .where('id', '=', partnerId)
    .executeTakeFirstOrThrow(() => new Error(`recordEvent: partner ${partnerId} does not exist`));
  return { apiVersion: partner.pinned_version, createdAt: partner.now };
}

/** The id of the event's object (a payment shows it as `paymentId`), which orders its deliveries. */
function subjectOf(object: Record<string, unknown>): string | null {
  const id = object.id ?? object.paymentId;
  return typeof id === 'string' ? id : null;
}

/** The payment an event is about (a payment's or a refund's `paymentId`), for the payment's timeline. */
function paymentOf(object: Record<string, unknown>): string | null {
  return typeof object.paymentId === 'string' ? object.paymentId : null;
}

/** An event's rows as parts of one statement (`eventWrites`). */
export interface EventWrites {
  id: string;
  /** The CTEs `event` and `delivery`: the event, a delivery to every matching endpoint and its first attempt's job. */
  ctes: RawBuilder<unknown>;
  /** An expression over `delivery` that queues the first attempts; the statement must select it. */
  firstAttempts: RawBuilder<unknown>;
}

/**
 * The event and its deliveries as CTEs of a statement, so that a change can write itself and its event in one round
 * trip; `when` (an SQL condition, over the statement's other CTEs) leaves them unwritten when it is false.
 */
export function eventWrites(event: NewEvent, stamp: EventStamp, when: RawBuilder<boolean> = sql`true`): EventWrites {
  const id = newId('evt');
  // The body is rendered once so every delivery and redelivery sends, and signs, the same bytes.
  const body = JSON.stringify({
    id,
    type: event.type,
    createdAt: stamp.createdAt.toISOString(),
    apiVersion: stamp.apiVersion,
    data: { object: event.object },
  });
  const endpointOfMerchant =
    event.merchantId === null
      ? sql`endpoint.merchant_id IS NULL`
      : sql`(endpoint.merchant_id IS NULL OR endpoint.merchant_id = ${event.merchantId})`;
  // A test event is its own object: one the receiver refuses holds back no later test event.
  const endpointReceives =
    event.onlyToEndpointId === undefined
      ? sql`${event.type} = ANY(endpoint.events) AND ${endpointOfMerchant}`
      : sql`endpoint.id = ${event.onlyToEndpointId}`;
  const ctes = sql`event AS (
      INSERT INTO webhook_events (id, partner_id, merchant_id, type, body, payment_id, created_at)
      SELECT ${id}, ${event.partnerId}, ${event.merchantId}, ${event.type}, ${body}, ${paymentOf(event.object)}, ${stamp.createdAt} WHERE ${when}
      RETURNING id
    ), delivery AS (
      INSERT INTO webhook_deliveries (event_id, endpoint_id, subject)
      SELECT event.id, endpoint.id, ${event.onlyToEndpointId === undefined ? subjectOf(event.object) : id} FROM event, webhook_endpoints AS endpoint
      WHERE endpoint.partner_id = ${event.partnerId} AND endpoint.deleted_at IS NULL AND ${endpointReceives}
      ORDER BY endpoint.id
      RETURNING id, endpoint_id
    )`;
  const firstAttempts = sql`(SELECT count(${firstAttemptJob(sql.ref('delivery.id'), sql.ref('delivery.endpoint_id'))}) FROM delivery)`;
  return { id, ctes, firstAttempts };
}

/**
 * Records an event and schedules its delivery to every matching endpoint, inside the caller's transaction (D17):
 * the event and its delivery jobs exist exactly when the change that caused them commits. One statement, after the
 * stamp (read here unless the caller read it with its own change). Returns the `evt_` id.
 */
export async function recordEvent(trx: Kysely<Database>, event: NewEvent, stamp?: EventStamp): Promise<string> {
  const writes = eventWrites(event, stamp ?? (await eventStamp(trx, event.partnerId)));
  await sql`WITH ${writes.ctes} SELECT ${writes.firstAttempts}`.execute(trx);
  return writes.id;
}
