import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import { afterCommit } from '../db/afterCommit.ts';
import type { Db } from '../db/database.ts';
import { logDomainEvent } from '../log.ts';
import type { WebhookDeliveryOptions } from './deliveryOptions.ts';
import { nextAttemptAt } from './retrySchedule.ts';
import { scheduleDeliveryAttempt } from './schedule.ts';
import { type SendResult, sendWebhookRequest } from './send.ts';
import { signatureHeader } from '@paygate/client/webhooks';

export const USER_AGENT = 'paygate-webhooks/1 (+https://github.com/paygate)';

/** How long a delivery that waits for an older one to the same endpoint sleeps past that one's next attempt. */
const ORDER_WAIT_MARGIN_MS = 500;

export interface DeliveryContext {
  db: Db;
  clock: Clock;
  options: WebhookDeliveryOptions;
}

function readDelivery(db: Db, deliveryId: string) {
  return db
    .selectFrom('webhook_deliveries as delivery')
    .innerJoin('webhook_events as event', 'event.id', 'delivery.event_id')
    .innerJoin('webhook_endpoints as endpoint', 'endpoint.id', 'delivery.endpoint_id')
    .select([
      'delivery.id',
      'delivery.status',
      'delivery.attempts',
      'delivery.redelivery',
      'delivery.subject',
      'delivery.first_attempt_at',
      'delivery.endpoint_id',
      'event.id as event_id',
      'event.body',
      'endpoint.url',
      'endpoint.secret',
      'endpoint.deleted_at',
    ])
    .where('delivery.id', '=', deliveryId)
    .executeTakeFirst();
}

type Delivery = NonNullable<Awaited<ReturnType<typeof readDelivery>>>;

/** Logs the attempt and moves the delivery on: succeeded, given up, or pending with its next attempt scheduled. */
async function recordAttempt(ctx: DeliveryContext, delivery: Delivery, result: SendResult, startedAt: Date) {
  const endpoint = { id: delivery.id, endpointId: delivery.endpoint_id };
  const attempt = delivery.attempts + 1;
  const succeeded = 'statusCode' in result && result.statusCode >= 200 && result.statusCode < 300;
  const firstAttemptAt = delivery.first_attempt_at ?? startedAt;
  const retryAt = succeeded ? null : nextAttemptAt(ctx.options.retry, attempt, firstAttemptAt, ctx.clock.now());
  const outcome = succeeded ? 'succeeded' : retryAt ? 'will_retry' : 'given_up';

  await ctx.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        attempts: attempt,
        first_attempt_at: firstAttemptAt,
        status: outcome === 'succeeded' ? 'succeeded' : outcome === 'given_up' ? 'failed' : 'pending',
        ...(retryAt ? { next_attempt_at: retryAt } : { completed_at: ctx.clock.now() }),
      })
      .where('id', '=', delivery.id)
      .where('status', '=', 'pending')
      .where('attempts', '=', delivery.attempts)
      .executeTakeFirst();
    // Another run recorded this attempt first (a job retried after a crash); its log entry and schedule stand.
    if (!updated.numUpdatedRows) return;
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: delivery.id,
        endpoint_id: delivery.endpoint_id,
        event_id: delivery.event_id,
        attempt,
        status_code: 'statusCode' in result ? result.statusCode : null,
        error: 'error' in result ? result.error : null,
        duration_ms: result.durationMs,
        outcome,
        attempted_at: startedAt,
      })
      .execute();
    if (retryAt) await scheduleDeliveryAttempt(trx, endpoint, retryAt);
    if (outcome !== 'succeeded') {
      // A warning at each failed attempt, so an endpoint that is down shows in the log long before it is given up.
      // Ids and the answer's status only: the endpoint's URL may carry a token, the error text may quote it.
      await afterCommit(trx, () =>
        logDomainEvent(
          outcome === 'given_up' ? 'webhook.delivery_failed' : 'webhook.delivery_retrying',
          {
            deliveryId: delivery.id,
            endpointId: delivery.endpoint_id,
            eventId: delivery.event_id,
            attempts: attempt,
            statusCode: 'statusCode' in result ? result.statusCode : null,
            nextAttemptAt: retryAt?.toISOString(),
          },
          'warn',
        ),
      );
    }
  });
}

/**
 * Makes one attempt of a pending delivery, logs it, and schedules the next attempt or gives up (D17). Runs in a
 * worker only, never in a request, so a slow or dead receiver costs the API nothing.
 */
export async function attemptDelivery(ctx: DeliveryContext, deliveryId: string): Promise<void> {
  const { db } = ctx;
  const delivery = await readDelivery(db, deliveryId);
  if (delivery?.status !== 'pending') return;
  if (delivery.deleted_at) {
    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'cancelled', completed_at: ctx.clock.now() })
      .where('id', '=', delivery.id)
      .where('status', '=', 'pending')
      .execute();
    return;
  }

  const endpoint = { id: delivery.id, endpointId: delivery.endpoint_id };
  if (!delivery.redelivery) {
    const older = await olderPendingDelivery(ctx, delivery);
    if (older) {
      const now = ctx.clock.now().getTime();
      await scheduleDeliveryAttempt(
        db,
        endpoint,
        new Date(Math.max(older.next_attempt_at.getTime(), now) + ORDER_WAIT_MARGIN_MS),
      );
      return;
    }
  }

  const startedAt = ctx.clock.now();
  const result = await sendWebhookRequest(
    delivery.url,
    delivery.body,
    {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'pay-event-id': delivery.event_id,
      'pay-signature': signatureHeader(delivery.secret, delivery.body, Math.floor(startedAt.getTime() / 1000)),
    },
    ctx.options,
  );
  await recordAttempt(ctx, delivery, result, startedAt);
}

/**
 * The oldest delivery of the same object to the endpoint that is still pending and recent enough to keep its place
 * in line: a payment's events arrive in the order they happened, and one a receiver refuses holds back only the
 * later events of its own object.
 */
function olderPendingDelivery(ctx: DeliveryContext, delivery: Pick<Delivery, 'id' | 'endpoint_id' | 'subject'>) {
  return ctx.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'next_attempt_at'])
    .where('endpoint_id', '=', delivery.endpoint_id)
    .where(sql<boolean>`subject IS NOT DISTINCT FROM ${delivery.subject}`)
    .where('status', '=', 'pending')
    .where('redelivery', '=', false)
    .where(sql<boolean>`id < ${delivery.id}::bigint`)
    .where('created_at', '>', new Date(ctx.clock.now().getTime() - ctx.options.orderingWindowMs))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}
