import { createSignInLink } from '../../src/dashboard/sessions.ts';
import type { Db } from '../../src/db/database.ts';
import { type CallOptions, call } from './testServer.ts';

/** An operator console session, signed in by a one-time link as the operator's browser is. */
export interface OperatorSignIn {
  cookie: string;
  csrfToken: string;
}

export async function signInOperator(server: { url: string; db: Db }): Promise<OperatorSignIn> {
  const link = await createSignInLink(server.db, null, 15 * 60_000, new Date());
  const followed = await fetch(`${server.url}/operator/link/${link.token}`, { redirect: 'manual' });
  const line = followed.headers.getSetCookie().find((cookie) => cookie.startsWith('paygate_operator=')) ?? '';
  const cookie = line.split(';')[0] as string;
  const session = await call(server, '/operator/api/session', { headers: { cookie } });
  if (session.status !== 200) throw new Error(`operator not signed in: ${session.status} ${session.text}`);
  return { cookie, csrfToken: session.body.csrfToken as string };
}

/** A request of the operator's session to `server`; a change carries its CSRF token. */
export function callAsOperator(
  server: { url: string },
  operator: OperatorSignIn,
  path: string,
  options: CallOptions = {},
) {
  return call(server, path, {
    ...options,
    headers: {
      cookie: operator.cookie,
      ...(options.method && options.method !== 'GET' ? { 'x-csrf-token': operator.csrfToken } : {}),
      ...options.headers,
    },
  });
}
