import type { App, AppContext } from '../context.ts';
import { registerFollowSignInLink } from './followSignInLink.ts';
import { registerServeDashboardAsset } from './serveDashboardAsset.ts';
import { registerShowDashboard } from './showDashboard.ts';
import { registerShowSession } from './showSession.ts';
import { registerSignIn } from './signIn.ts';
import { registerSignOut } from './signOut.ts';

/**
 * The dashboard's own routes: signing in (an API key, or a one-time link) and out, its pages and their assets.
 * Everything else the dashboard shows or changes goes through the API, with the session's cookie as its credential.
 */
export function registerDashboardRoutes(app: App, ctx: AppContext): void {
  registerSignIn(app, ctx);
  registerShowSession(app, ctx);
  registerSignOut(app, ctx);
  registerFollowSignInLink(app, ctx);
  registerShowDashboard(app, ctx);
  registerServeDashboardAsset(app);
}
