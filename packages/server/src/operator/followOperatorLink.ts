import type { App, AppContext } from '../context.ts';
import { registerFollowConsoleLink } from '../dashboard/followSignInLink.ts';
import { setOperatorCookie } from './operatorSession.ts';

/** `paygate operator-link`: signs in to the operator console. */
export function registerFollowOperatorLink(app: App, ctx: AppContext): void {
  registerFollowConsoleLink(app, ctx, {
    home: '/operator',
    audience: 'operator',
    summary: 'Sign in to the operator console with a one-time link',
    setCookie: setOperatorCookie,
  });
}
