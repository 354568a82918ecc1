import { randomBytes } from 'node:crypto';
import { UserFacingError } from '../userFacingError.ts';
import type { Db } from '../db/database.ts';
import { hashApiKey, SCOPES, type Scope } from '../http/auth.ts';
import { displayNameProblem, trimmedDisplayName } from '../http/displayName.ts';
import { DEFAULT_PARTNER_VERSION, isKnownVersion } from '../http/versions.ts';
import { newId } from '../ids.ts';

export class PartnerError extends UserFacingError {}

function newApiKeySecret(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

export function parseScopes(list: string): Scope[] {
  const scopes = [
    ...new Set(
      list
        .split(',')
        .map((scope) => scope.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length || !scopes.length) {
    throw new PartnerError(`scopes must be a comma-separated list of ${SCOPES.join(', ')}; got "${list}"`);
  }
  return scopes as Scope[];
}

async function requirePartner(db: Db, partnerId: string): Promise<void> {
  const found = await db.selectFrom('partners').select('id').where('id', '=', partnerId).executeTakeFirst();
  if (!found) throw new PartnerError(`partner ${partnerId} does not exist`);
}

/** Creates an API key; the secret is returned once and only its hash is stored. */
export async function createApiKey(db: Db, partnerId: string, scopes: Scope[] = [...SCOPES]) {
  await requirePartner(db, partnerId);
  const secret = newApiKeySecret();
  const keyId = newId('key');
  await db
    .insertInto('api_keys')
    .values({
      id: keyId,
      partner_id: partnerId,
      display_prefix: secret.slice(0, 10),
      secret_hash: hashApiKey(secret),
      scopes,
    })
    .execute();
  return { keyId, apiKey: secret };
}

export async function revokeApiKey(db: Db, keyId: string): Promise<void> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!result.numUpdatedRows) throw new PartnerError(`API key ${keyId} does not exist or is already revoked`);
}

/** The name as stored (trimmed), or a PartnerError saying why it cannot be one (`what` says whose it is). */
function nameToStore(name: string, what: string): string {
  const problem = displayNameProblem(name);
  if (problem) throw new PartnerError(`${what} name ${problem}`);
  return trimmedDisplayName(name);
}

export async function createApp(db: Db, partnerId: string, name: string, iconUrl?: string) {
  const appName = nameToStore(name, 'an app');
  await requirePartner(db, partnerId);
  if (iconUrl !== undefined && !/^https:\/\/\S+$/.test(iconUrl)) throw new PartnerError('--icon must be an https URL');
  const appId = newId('app');
  await db
    .insertInto('apps')
    .values({ id: appId, partner_id: partnerId, name: appName, icon_url: iconUrl ?? null })
    .execute();
  return { appId };
}

/** A partner with one all-scope API key and one wallet app, ready to call every endpoint. */
export async function createPartner(db: Db, name: string) {
  const partnerName = nameToStore(name, 'a partner');
  // Its wallet app is named after it: that name is checked too, before anything is written.
  const appName = nameToStore(`${partnerName} wallet`, "a partner's wallet app");
  const partnerId = newId('ptr');
  await db
    .insertInto('partners')
    .values({ id: partnerId, name: partnerName, pinned_version: DEFAULT_PARTNER_VERSION })
    .execute();
  const { apiKey } = await createApiKey(db, partnerId);
  const { appId } = await createApp(db, partnerId, appName);
  return { partnerId, apiKey, appId };
}

export async function pinPartnerVersion(db: Db, partnerId: string, version: string): Promise<void> {
  if (!isKnownVersion(version)) throw new PartnerError(`${version} is not a known API version`);
  const result = await db
    .updateTable('partners')
    .set({ pinned_version: version })
    .where('id', '=', partnerId)
    .executeTakeFirst();
  if (!result.numUpdatedRows) throw new PartnerError(`partner ${partnerId} does not exist`);
}

/** A partner's name, as the dashboard and a buyer's wallet name show it; undefined for an unknown partner. */
export async function partnerNameOf(db: Db, partnerId: string): Promise<string | undefined> {
  const partner = await db.selectFrom('partners').select('name').where('id', '=', partnerId).executeTakeFirst();
  return partner?.name;
}
