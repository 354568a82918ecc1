import type { App, AppContext } from '../context.ts';
import { registerCreateWebhookEndpoint } from './createWebhookEndpoint.ts';
import { registerDeleteWebhookEndpoint } from './deleteWebhookEndpoint.ts';
import { registerListWebhookDeliveries } from './listWebhookDeliveries.ts';
import { registerListPaymentEvents } from './listPaymentEvents.ts';
import { registerListWebhookEndpoints } from './listWebhookEndpoints.ts';
import { registerRedeliverEvent } from './redeliverEvent.ts';
import { registerSendTestEvent } from './sendTestEvent.ts';
import { registerStreamEvents } from './streamEvents.ts';

export function registerWebhookRoutes(app: App, ctx: AppContext): void {
  registerCreateWebhookEndpoint(app, ctx);
  registerListWebhookEndpoints(app, ctx);
  registerDeleteWebhookEndpoint(app, ctx);
  registerListWebhookDeliveries(app, ctx);
  registerRedeliverEvent(app, ctx);
  registerSendTestEvent(app, ctx);
  registerStreamEvents(app, ctx);
  registerListPaymentEvents(app, ctx);
}
