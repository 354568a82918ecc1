import type { App, AppContext } from '../context.ts';
import { registerCreateApiKey } from './createApiKeyRoute.ts';
import { registerListApiKeys } from './listApiKeys.ts';
import { registerPinApiVersion } from './pinApiVersion.ts';
import { registerRevokeApiKey } from './revokeApiKeyRoute.ts';
import { registerShowApiVersion } from './showApiVersion.ts';

/**
 * A partner's own API keys, listed, made and revoked, and its API version pin, through the API (and so from the
 * dashboard).
 */
export function registerApiKeyRoutes(app: App, ctx: AppContext): void {
  registerListApiKeys(app, ctx);
  registerCreateApiKey(app, ctx);
  registerRevokeApiKey(app, ctx);
  registerShowApiVersion(app, ctx);
  registerPinApiVersion(app, ctx);
}
