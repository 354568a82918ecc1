import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { enqueueJob } from '../jobs/queue.ts';

export const DELIVER_WEBHOOK_TASK = 'webhooks_deliver';
// Retries are scheduled by the task itself (with jitter); the job's own retries only cover crashes and database errors.
const DELIVERY_JOB_MAX_ATTEMPTS = 5;

/** Jobs of one endpoint share a queue, named with this and the endpoint's id. */
const DELIVERY_QUEUE_PREFIX = 'webhooks:';

export interface DeliverWebhookPayload {
  deliveryId: string;
}

/**
 * Schedules one attempt of a delivery. Jobs of one endpoint share a queue, so an endpoint never receives two
 * requests at once and one slow endpoint never holds up another's deliveries.
 */
export async function scheduleDeliveryAttempt(
  db: Kysely<Database>,
  delivery: { id: string; endpointId: string },
  runAt?: Date,
): Promise<void> {
  const payload: DeliverWebhookPayload = { deliveryId: delivery.id };
  await enqueueJob(db, DELIVER_WEBHOOK_TASK, payload, {
    queueName: `${DELIVERY_QUEUE_PREFIX}${delivery.endpointId}`,
    maxAttempts: DELIVERY_JOB_MAX_ATTEMPTS,
    ...(runAt ? { runAt } : {}),
  });
}

/**
 * The same first attempt as `scheduleDeliveryAttempt`, as an SQL expression over a delivery's id and endpoint
 * columns, for a statement that creates the deliveries and their jobs at once.
 */
export function firstAttemptJob(deliveryId: RawBuilder<unknown>, endpointId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`graphile_worker.add_job(
    identifier => ${DELIVER_WEBHOOK_TASK},
    payload => json_build_object('deliveryId', ${deliveryId}::text),
    queue_name => ${DELIVERY_QUEUE_PREFIX} || ${endpointId},
    max_attempts => ${DELIVERY_JOB_MAX_ATTEMPTS}
  )`;
}
