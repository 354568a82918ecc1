import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { ConsoleAudience } from '../db/schema.ts';
import { hashApiKey, SCOPES, type Scope } from '../http/auth.ts';
import { newId } from '../ids.ts';
import { UserFacingError } from '../userFacingError.ts';

/** A random secret for a cookie, a link or a CSRF token: 256 bits, URL-safe. */
function secret(): string {
  return randomBytes(32).toString('base64url');
}

/** Who signs in: a partner (with the scopes of its key, or every scope by a link), or the operator. */
export type SignIn = { partnerId: string; keyId: string | null; scopes: readonly Scope[] } | { operator: true };

export interface StartedSession {
  id: string;
  /** The cookie's value: shown to the browser once, kept only as its hash. */
  secret: string;
  audience: ConsoleAudience;
  partnerId: string | null;
  scopes: Scope[];
  csrfToken: string;
  expiresAt: Date;
}

/** Starts a console session for `signIn`, lasting `lifetimeMs`. */
export async function startSession(db: Db, signIn: SignIn, lifetimeMs: number, now: Date): Promise<StartedSession> {
  const partner = 'operator' in signIn ? undefined : signIn;
  const session: StartedSession = {
    id: newId('dss'),
    secret: secret(),
    audience: partner ? 'partner' : 'operator',
    partnerId: partner?.partnerId ?? null,
    scopes: partner ? [...partner.scopes] : [],
    csrfToken: secret(),
    expiresAt: new Date(now.getTime() + lifetimeMs),
  };
  await db
    .insertInto('dashboard_sessions')
    .values({
      id: session.id,
      token_hash: hashApiKey(session.secret),
      audience: session.audience,
      partner_id: session.partnerId,
      key_id: partner?.keyId ?? null,
      scopes: session.scopes,
      csrf_token: session.csrfToken,
      expires_at: session.expiresAt,
    })
    .execute();
  return session;
}

/** Ends a session for good: its cookie signs nothing in from then on. */
export async function endSession(db: Db, sessionId: string, now: Date): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ ended_at: now })
    .where('id', '=', sessionId)
    .where('ended_at', 'is', null)
    .execute();
}

/** The operator's session of a cookie's secret while it may act: not ended, not expired. */
export async function operatorSessionOf(db: Db, cookie: string, now: Date) {
  return db
    .selectFrom('dashboard_sessions')
    .select(['id', 'csrf_token', 'expires_at'])
    .where('token_hash', '=', hashApiKey(cookie))
    .where('audience', '=', 'operator')
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export class ConsoleLinkError extends UserFacingError {}

/**
 * A one-time sign-in link's token, valid for `lifetimeMs` and kept only as its hash: to a partner's dashboard, or to
 * the operator console (`partnerId` null).
 */
export async function createSignInLink(
  db: Db,
  partnerId: string | null,
  lifetimeMs: number,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  if (partnerId !== null) {
    const partner = await db.selectFrom('partners').select('id').where('id', '=', partnerId).executeTakeFirst();
    if (!partner) throw new ConsoleLinkError(`partner ${partnerId} does not exist`);
  }
  const link = { token: secret(), expiresAt: new Date(now.getTime() + lifetimeMs) };
  await db
    .insertInto('dashboard_links')
    .values({
      token_hash: hashApiKey(link.token),
      audience: partnerId === null ? 'operator' : 'partner',
      partner_id: partnerId,
      expires_at: link.expiresAt,
    })
    .execute();
  return link;
}

/**
 * Uses a one-time link of `audience`: once, before it expires, it starts a session (a partner's with every scope).
 * Any use spends the link, whichever console it was followed at, so a link read by the wrong console (or from a
 * log) signs in nowhere afterwards. Taken in one conditional update, so two clicks at once start one session;
 * undefined for a link used, expired, never made, or made for the other console.
 */
export async function useSignInLink(
  db: Db,
  token: string,
  audience: ConsoleAudience,
  lifetimeMs: number,
  now: Date,
): Promise<StartedSession | undefined> {
  const link = await spendSignInLink(db, token, now);
  if (!link || link.audience !== audience || link.expires_at <= now) return undefined;
  const signIn: SignIn =
    link.partner_id === null ? { operator: true } : { partnerId: link.partner_id, keyId: null, scopes: SCOPES };
  return startSession(db, signIn, lifetimeMs, now);
}

/** Marks a one-time link used, if it was not; its row when this call spent it. */
export async function spendSignInLink(db: Db, token: string, now: Date) {
  return db
    .updateTable('dashboard_links')
    .set({ used_at: now })
    .where('token_hash', '=', hashApiKey(token))
    .where('used_at', 'is', null)
    .returning(['partner_id', 'audience', 'expires_at'])
    .executeTakeFirst();
}
