import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { ApiKeysTable } from '../db/schema.ts';
import { type Principal, SCOPES, type Scope } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { Nullable } from '../http/schemas.ts';

export const ScopeName = Type.Union(SCOPES.map((scope) => Type.Literal(scope)));

/** An API key as its partner sees it: never the key itself, only the first characters it was shown with. */
export const ApiKeyView = Type.Object({
  keyId: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  scopes: Type.Array(ScopeName),
  createdAt: Type.String({ description: 'ISO 8601 timestamp' }),
  revokedAt: Nullable(Type.String({ description: 'ISO 8601 timestamp' })),
});

export function toApiKeyView(row: Selectable<ApiKeysTable>) {
  return {
    keyId: row.id,
    prefix: row.display_prefix,
    scopes: row.scopes as Scope[],
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

/**
 * A caller manages only keys that can do no more than it can: it cannot make or revoke a key with a scope it lacks,
 * so a key with fewer scopes (or a dashboard session signed in with one) never gains more through another key.
 */
export function requireScopesHeld(principal: Principal, scopes: readonly string[]): void {
  const held = new Set<string>('scopes' in principal ? principal.scopes : []);
  const lacking = scopes.filter((scope) => !held.has(scope));
  if (lacking.length) {
    throw new ApiError('forbidden', `The credentials lack the scopes ${lacking.join(', ')} of that key.`);
  }
}
