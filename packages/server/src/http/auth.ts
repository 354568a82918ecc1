import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { ApiError } from './errors.ts';
import { REFERENCE_VERSION, requestedVersion, resolveVersion } from './versions.ts';

export const SCOPES = ['merchants', 'payments', 'gateway'] as const;
export type Scope = (typeof SCOPES)[number];

/** What a route needs from its caller; `false` for public routes (health, docs, buyer pages, assets). */
export type RouteAuth = false | { scope: Scope; allowApp?: boolean };

export type Principal =
  | { kind: 'apiKey'; partnerId: string; keyId: string; scopes: Scope[]; pinnedVersion: string }
  | { kind: 'app'; partnerId: string; appId: string; clientId: string; pinnedVersion: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
    apiVersion: string | undefined;
    /** The presented API key's hash once computed; null when the request has no key. */
    apiKeyHash: string | null | undefined;
  }
}

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function hashApiKey(secret: string): string {
  return hash('sha256', secret, 'hex');
}

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The API key of a request: `Api-Key`, or `Authorization: Bearer <key>` as an alias (D2). */
function presentedApiKey(request: FastifyRequest): string | undefined {
  const apiKey = singleHeader(request, 'api-key');
  if (apiKey) return apiKey;
  const authorization = singleHeader(request, 'authorization');
  const bearer = authorization && /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return bearer ? bearer[1] : undefined;
}

/** The hash of the request's API key, computed once per request (rate limiting and authentication both need it). */
export function presentedApiKeyHash(request: FastifyRequest): string | null {
  if (request.apiKeyHash === undefined) {
    const apiKey = presentedApiKey(request);
    request.apiKeyHash = apiKey === undefined ? null : hashApiKey(apiKey);
  }
  return request.apiKeyHash;
}

interface CachedCredential<T> {
  value: T | undefined;
  expiresAt: number;
}

type KeyRecord = { partnerId: string; keyId: string; scopes: Scope[]; pinnedVersion: string };
type AppRecord = { partnerId: string; appId: string; pinnedVersion: string };

/**
 * Verifies credentials against the database and remembers the answer for `ttlMs`, so authentication costs no
 * database round-trip per request; a revoked key stops working within `ttlMs`.
 */
export class CredentialVerifier {
  private readonly keys = new Map<string, CachedCredential<KeyRecord>>();
  private readonly apps = new Map<string, CachedCredential<AppRecord>>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async apiKey(hash: string): Promise<KeyRecord | undefined> {
    return this.cached(this.keys, hash, async () => {
      const row = await this.db
        .selectFrom('api_keys')
        .innerJoin('partners', 'partners.id', 'api_keys.partner_id')
        .select(['api_keys.id', 'api_keys.partner_id', 'api_keys.scopes', 'partners.pinned_version'])
        .where('api_keys.secret_hash', '=', hash)
        .where('api_keys.revoked_at', 'is', null)
        .executeTakeFirst();
      return row
        ? { partnerId: row.partner_id, keyId: row.id, scopes: row.scopes as Scope[], pinnedVersion: row.pinned_version }
        : undefined;
    });
  }

  async app(appId: string): Promise<AppRecord | undefined> {
    return this.cached(this.apps, appId, async () => {
      const row = await this.db
        .selectFrom('apps')
        .innerJoin('partners', 'partners.id', 'apps.partner_id')
        .select(['apps.id', 'apps.partner_id', 'partners.pinned_version'])
        .where('apps.id', '=', appId)
        .executeTakeFirst();
      return row ? { partnerId: row.partner_id, appId: row.id, pinnedVersion: row.pinned_version } : undefined;
    });
  }

  private async cached<T>(
    cache: Map<string, CachedCredential<T>>,
    key: string,
    load: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const now = this.now();
    const hit = cache.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = await load();
    if (this.ttlMs > 0) {
      if (cache.size > 10_000) cache.clear();
      cache.set(key, { value, expiresAt: now + this.ttlMs });
    }
    return value;
  }
}

async function authenticate(request: FastifyRequest, auth: Exclude<RouteAuth, false>, verifier: CredentialVerifier) {
  const apiKeyHash = presentedApiKeyHash(request);
  const appId = singleHeader(request, 'app-id');
  if (apiKeyHash && appId) {
    throw new ApiError(400, 'conflicting_auth_headers', 'Send either Api-Key or App-Id, not both.');
  }
  if (appId) {
    const clientId = singleHeader(request, 'client-id');
    if (!clientId) throw new ApiError(401, 'missing_client_id', 'App-Id requires a Client-Id header.');
    if (!CLIENT_ID.test(clientId)) {
      throw ApiError.validation([
        { field: 'header client-id', message: 'must be 1 to 128 characters of letters, digits, . _ : -' },
      ]);
    }
    const app = await verifier.app(appId);
    if (!app) throw new ApiError(401, 'invalid_app_id', 'The App-Id is not known.');
    if (!auth.allowApp) throw new ApiError(403, 'forbidden', 'An App-Id may call gateway endpoints only.');
    return { kind: 'app' as const, clientId, ...app };
  }
  if (!apiKeyHash) throw new ApiError(401, 'missing_api_key', 'Send your API key in the Api-Key header.');
  const key = await verifier.apiKey(apiKeyHash);
  if (!key) throw new ApiError(401, 'invalid_api_key', 'The API key is not valid or has been revoked.');
  if (!key.scopes.includes(auth.scope)) {
    throw new ApiError(403, 'forbidden', `This API key lacks the "${auth.scope}" scope.`);
  }
  return { kind: 'apiKey' as const, ...key };
}

/**
 * Authenticates every request to a route that declares `config.auth`, then resolves its API version; the
 * resolved version is echoed in `Pay-Version` on every response, errors included (D3).
 */
export function registerAuth(app: FastifyInstance, verifier: CredentialVerifier): void {
  app.decorateRequest('principal', undefined);
  app.decorateRequest('apiVersion', undefined);
  app.decorateRequest('apiKeyHash', undefined);
  app.addHook('onRequest', async (request) => {
    const auth = request.routeOptions.config.auth;
    if (!auth) return;
    request.principal = await authenticate(request, auth, verifier);
    request.apiVersion = resolveVersion(requestedVersion(request.headers), request.principal.pinnedVersion);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    let version = request.apiVersion;
    if (!version) {
      try {
        version = requestedVersion(request.headers) ?? REFERENCE_VERSION;
      } catch {
        version = REFERENCE_VERSION;
      }
    }
    reply.header('pay-version', version);
    done(null, payload);
  });
}

/** The authenticated caller of a route that requires authentication. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`route ${request.routeOptions.url} has no auth config`);
  return request.principal;
}
