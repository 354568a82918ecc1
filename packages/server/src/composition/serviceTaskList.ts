import type { TaskList } from 'graphile-worker';
import type { AppContext } from '../context.ts';
import { EXPIRE_PAYMENT_TASK, expirePaymentTask } from '../payments/expiry.ts';
import { createWebhookTasks } from '../webhooks/tasks.ts';

/** Every background task of the service; each process runs them all. */
export function serviceTaskList(ctx: AppContext): TaskList {
  return {
    [EXPIRE_PAYMENT_TASK]: expirePaymentTask(ctx),
    ...createWebhookTasks(ctx),
  };
}
