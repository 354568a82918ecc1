import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { enqueueJob } from '../jobs/queue.ts';

export const DELIVER_WEBHOOK_TASK = 'webhooks_deliver';

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
    queueName: `webhooks:${delivery.endpointId}`,
    // Retries are scheduled by the task itself (with jitter); the job's own retries only cover crashes and database errors.
    maxAttempts: 5,
    ...(runAt ? { runAt } : {}),
  });
}
