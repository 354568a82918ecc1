import type { Task, TaskList } from 'graphile-worker';
import { type Clock, systemClock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { attemptDelivery } from './deliver.ts';
import { deliveryOptions, type WebhookDeliveryOptions } from './deliveryOptions.ts';
import { DELIVER_WEBHOOK_TASK, type DeliverWebhookPayload } from './schedule.ts';

function isDeliverPayload(payload: unknown): payload is DeliverWebhookPayload {
  return (
    typeof payload === 'object' && payload !== null && typeof (payload as DeliverWebhookPayload).deliveryId === 'string'
  );
}

/**
 * The webhook worker tasks, to merge into the task list every process runs. Takes the context (an AppContext
 * fits) because delivery needs the database, and tests override where and how it may connect.
 */
export function createWebhookTasks(ctx: {
  db: Db;
  clock?: Clock;
  webhookDelivery?: Partial<WebhookDeliveryOptions>;
}): TaskList {
  const deliveryContext = {
    db: ctx.db,
    clock: ctx.clock ?? systemClock,
    options: deliveryOptions(ctx.webhookDelivery),
  };
  const deliver: Task = async (payload) => {
    if (!isDeliverPayload(payload)) throw new Error(`${DELIVER_WEBHOOK_TASK}: malformed payload`);
    await attemptDelivery(deliveryContext, payload.deliveryId);
  };
  return { [DELIVER_WEBHOOK_TASK]: deliver };
}
