import { readSessionAt, send } from '../ui/api.ts';
import type { Session } from './apiTypes.ts';

export function readSession(): Promise<Session | undefined> {
  return readSessionAt<Session>('/dashboard/api/session');
}

export async function signIn(apiKey: string): Promise<Session> {
  const response = await send('/dashboard/api/session', { method: 'POST', body: { apiKey } });
  return (await response.json()) as Session;
}

export async function signOut(session: Session): Promise<void> {
  await send('/dashboard/api/session', { method: 'DELETE', csrfToken: session.csrfToken });
}
