import type { App, AppContext } from '../context.ts';
import { CursorCodec } from '../http/cursor.ts';
import { serviceSecret } from '../db/serviceSecrets.ts';
import { registerCreateWebhookEndpoint } from './createWebhookEndpoint.ts';
import { registerDeleteWebhookEndpoint } from './deleteWebhookEndpoint.ts';
import { registerListWebhookDeliveries } from './listWebhookDeliveries.ts';
import { registerListWebhookEndpoints } from './listWebhookEndpoints.ts';
import { registerRedeliverEvent } from './redeliverEvent.ts';

export async function registerWebhookRoutes(app: App, ctx: AppContext): Promise<void> {
  registerCreateWebhookEndpoint(app, ctx);
  registerListWebhookEndpoints(app, ctx);
  registerDeleteWebhookEndpoint(app, ctx);
  registerListWebhookDeliveries(app, ctx, new CursorCodec(await serviceSecret(ctx.db, 'cursor-signing')));
  registerRedeliverEvent(app, ctx);
}
