import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { ApiError, type ErrorCode } from './errors.ts';
import { andThen, type Eventually } from './eventually.ts';
import type { RateLimiter } from './rateLimit.ts';
import { appendRouteHook } from './routeHooks.ts';
import { nameVersion, requestedVersion, resolveVersion } from './versions.ts';

export const SCOPES = ['merchants', 'payments', 'gateway', 'x402'] as const;

/** The cookie that carries a dashboard session's secret. */
export const SESSION_COOKIE = 'paygate_session';
export type Scope = (typeof SCOPES)[number];

/** What a route needs from its caller; `false` for public routes (health, docs, buyer pages, assets). */
export type RouteAuth =
  | false
  | {
      scope: Scope;
      allowApp?: boolean;
      /** The older `X-Api-Key` header is taken for `Api-Key` (a deprecated path that documents it). */
      legacyKeyHeader?: boolean;
    }
  /** A paired point-of-sale device's routes: its `Device-Key` only, no other credential. */
  | { device: true };

export type Principal =
  | { kind: 'apiKey'; partnerId: string; keyId: string; scopes: Scope[]; pinnedVersion: string }
  | { kind: 'app'; partnerId: string; appId: string; clientId: string; pinnedVersion: string }
  | {
      kind: 'session';
      partnerId: string;
      sessionId: string;
      /** The API key it signed in with; null for a one-time link. */
      keyId: string | null;
      scopes: Scope[];
      pinnedVersion: string;
      csrfToken: string;
      expiresAt: Date;
    }
  /** A point-of-sale device: acts for one merchant, on the point-of-sale routes only. */
  | { kind: 'device'; partnerId: string; merchantId: string; deviceId: string; pinnedVersion: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /**
     * `false` exempts the route from rate limiting (health checks, metrics); `'perPayment'` also counts the
     * requests per payment (path parameter `id`) for calls that cost the service chain reads, whoever sends them.
     */
    rateLimit?: false | 'perPayment';
  }
  interface FastifyRequest {
    principal: Principal | undefined;
    apiVersion: string | undefined;
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

/**
 * The API key of a request: `Api-Key`, or `Authorization: Bearer <key>` as an alias (D2), or on a route that takes
 * it the older `X-Api-Key`.
 */
function presentedApiKey(request: FastifyRequest, legacyKeyHeader = false): string | undefined {
  const apiKey = singleHeader(request, 'api-key');
  if (apiKey) return apiKey;
  const authorization = singleHeader(request, 'authorization');
  const bearer = authorization && /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (bearer) return bearer[1];
  return legacyKeyHeader ? singleHeader(request, 'x-api-key') : undefined;
}

interface CachedCredential<T> {
  value: T | undefined;
  expiresAt: number;
}

type KeyRecord = Extract<Principal, { kind: 'apiKey' }>;
type SessionRecord = Extract<Principal, { kind: 'session' }>;
type AppRecord = { partnerId: string; appId: string; pinnedVersion: string };
type DeviceRecord = Extract<Principal, { kind: 'device' }>;

/**
 * Verifies credentials against the database and remembers the answer for `ttlMs`, so authentication costs no
 * database round-trip per request; a revoked key stops working within `ttlMs`. A remembered answer is returned
 * synchronously: the request then goes on without waiting for a promise.
 */
export class CredentialVerifier {
  private readonly keys = new Map<string, CachedCredential<KeyRecord>>();
  private readonly apps = new Map<string, CachedCredential<AppRecord>>();
  private readonly sessions = new Map<string, CachedCredential<SessionRecord>>();
  private readonly devices = new Map<string, CachedCredential<DeviceRecord>>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  apiKey(hash: string): Eventually<KeyRecord | undefined> {
    return this.cached(this.keys, hash, async () => {
      const row = await this.db
        .selectFrom('api_keys')
        .innerJoin('partners', 'partners.id', 'api_keys.partner_id')
        .select(['api_keys.id', 'api_keys.partner_id', 'api_keys.scopes', 'partners.pinned_version'])
        .where('api_keys.secret_hash', '=', hash)
        .where('api_keys.revoked_at', 'is', null)
        .executeTakeFirst();
      return row
        ? {
            kind: 'apiKey' as const,
            partnerId: row.partner_id,
            keyId: row.id,
            scopes: row.scopes as Scope[],
            pinnedVersion: row.pinned_version,
          }
        : undefined;
    });
  }

  /**
   * A dashboard session by its secret's hash while it may act: not ended, not expired, and its API key (if it signed
   * in with one) not revoked.
   */
  session(hash: string): Eventually<SessionRecord | undefined> {
    const found = this.cached(this.sessions, hash, async () => {
      const row = await this.db
        .selectFrom('dashboard_sessions as session')
        .innerJoin('partners', 'partners.id', 'session.partner_id')
        .leftJoin('api_keys as key', 'key.id', 'session.key_id')
        .select([
          'session.id',
          'session.key_id',
          // The partner joined: a dashboard session always has one.
          'partners.id as partner_id',
          'session.scopes',
          'session.csrf_token',
          'session.expires_at',
          'partners.pinned_version',
        ])
        .where('session.token_hash', '=', hash)
        .where('session.audience', '=', 'partner')
        .where('session.ended_at', 'is', null)
        .where((eb) => eb.or([eb('session.key_id', 'is', null), eb('key.revoked_at', 'is', null)]))
        .executeTakeFirst();
      return row
        ? {
            kind: 'session' as const,
            partnerId: row.partner_id,
            sessionId: row.id,
            keyId: row.key_id,
            scopes: row.scopes as Scope[],
            pinnedVersion: row.pinned_version,
            csrfToken: row.csrf_token,
            expiresAt: row.expires_at,
          }
        : undefined;
    });
    // Remembered past its expiry, it acts no longer.
    return andThen(found, (session) => (session && session.expiresAt.getTime() > this.now() ? session : undefined));
  }

  /** A paired point-of-sale device by its key's hash, while neither it is revoked nor its merchant deleted. */
  device(hash: string): Eventually<DeviceRecord | undefined> {
    return this.cached(this.devices, hash, async () => {
      const row = await this.db
        .selectFrom('point_of_sale_devices as device')
        .innerJoin('partners', 'partners.id', 'device.partner_id')
        .innerJoin('merchants', 'merchants.id', 'device.merchant_id')
        .select(['device.id', 'device.partner_id', 'device.merchant_id', 'partners.pinned_version'])
        .where('device.key_hash', '=', hash)
        .where('device.revoked_at', 'is', null)
        .where('merchants.deleted_at', 'is', null)
        .executeTakeFirst();
      return row
        ? {
            kind: 'device' as const,
            partnerId: row.partner_id,
            merchantId: row.merchant_id,
            deviceId: row.id,
            pinnedVersion: row.pinned_version,
          }
        : undefined;
    });
  }

  /** A device revoked in this process stops at once here; other processes stop within the cache's time. */
  forgetDevice(deviceId: string): void {
    for (const [hash, cached] of this.devices) {
      if (cached.value?.deviceId === deviceId) this.devices.delete(hash);
    }
  }

  /**
   * A key revoked in this process stops at once here, with the dashboard sessions signed in with it; other processes
   * stop within the cache's time.
   */
  forgetApiKey(hash: string, keyId: string): void {
    this.keys.delete(hash);
    for (const [sessionHash, cached] of this.sessions) {
      if (cached.value?.keyId === keyId) this.sessions.delete(sessionHash);
    }
  }

  /**
   * A partner's credentials are read again at their next use here (after its version pin moved); other processes read
   * them again within the cache's time.
   */
  forgetPartner(partnerId: string): void {
    for (const cache of [this.keys, this.sessions, this.apps, this.devices] as Map<
      string,
      CachedCredential<{ partnerId: string }>
    >[]) {
      for (const [key, cached] of cache) {
        if (cached.value?.partnerId === partnerId) cache.delete(key);
      }
    }
  }

  /** A session ended in this process stops at once here; other processes stop within the cache's time. */
  forgetSession(hash: string): void {
    this.sessions.delete(hash);
  }

  app(appId: string): Eventually<AppRecord | undefined> {
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

  private cached<T>(
    cache: Map<string, CachedCredential<T>>,
    key: string,
    load: () => Promise<T | undefined>,
  ): Eventually<T | undefined> {
    const now = this.now();
    const hit = cache.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    return load().then((value) => {
      if (this.ttlMs > 0) {
        if (cache.size > 10_000) cache.clear();
        cache.set(key, { value, expiresAt: now + this.ttlMs });
      }
      return value;
    });
  }
}

/** Who is calling, or why the call is refused. */
type Verdict = Principal | ApiError;

function refused(code: ErrorCode, message?: string): ApiError {
  return new ApiError(code, message);
}

/** Methods that change something: a session's request of one must carry its CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a session's request may change something: safe methods may; others carry its CSRF token. */
export function passesCsrfCheck(request: FastifyRequest, csrfToken: string): boolean {
  if (SAFE_METHODS.has(request.method)) return true;
  const presented = singleHeader(request, 'x-csrf-token');
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A dashboard session, by its cookie: with the scopes it signed in with; a change also needs the session's CSRF
 * token in `X-CSRF-Token`, which another site's page cannot read (the cookie is also SameSite=Strict).
 */
function authenticateSession(
  request: FastifyRequest,
  auth: Extract<RouteAuth, { scope: Scope }>,
  verifier: CredentialVerifier,
  cookie: string,
): Eventually<Verdict> {
  return andThen(verifier.session(hashApiKey(cookie)), (session): Verdict => {
    if (!session) return refused('invalid_session');
    if (!passesCsrfCheck(request, session.csrfToken)) return refused('invalid_csrf_token');
    if (!session.scopes.includes(auth.scope)) {
      return refused('forbidden', `The API key this session signed in with lacks the "${auth.scope}" scope.`);
    }
    return session;
  });
}

/**
 * A point-of-sale device's key, in `Device-Key`: it passes only on the device's routes; anywhere else it is known and
 * refused (403), so a device learns nothing of the other routes.
 */
function authenticateDevice(
  auth: Exclude<RouteAuth, false>,
  verifier: CredentialVerifier,
  deviceKey: string,
): Eventually<Verdict> {
  return andThen(verifier.device(hashApiKey(deviceKey)), (device): Verdict => {
    if (!device) return refused('invalid_device_key');
    if (!('device' in auth))
      return refused('forbidden', 'A point-of-sale device may call the point-of-sale routes only.');
    return device;
  });
}

function authenticate(
  request: FastifyRequest,
  auth: Exclude<RouteAuth, false>,
  verifier: CredentialVerifier,
): Eventually<Verdict> {
  const deviceKey = singleHeader(request, 'device-key');
  const apiKey = presentedApiKey(request, 'legacyKeyHeader' in auth && auth.legacyKeyHeader);
  const appId = singleHeader(request, 'app-id');
  if ([deviceKey, apiKey, appId].filter(Boolean).length > 1) return refused('conflicting_auth_headers');
  if (deviceKey) return authenticateDevice(auth, verifier, deviceKey);
  if ('device' in auth) return refused('missing_device_key');
  const session = request.cookies?.[SESSION_COOKIE];
  if (!apiKey && !appId && session) return authenticateSession(request, auth, verifier, session);
  if (appId) {
    const clientId = singleHeader(request, 'client-id');
    if (!clientId) return refused('missing_client_id');
    if (!CLIENT_ID.test(clientId)) {
      return ApiError.validation([
        { field: 'header client-id', message: 'must be 1 to 128 characters of letters, digits, . _ : -' },
      ]);
    }
    return andThen(verifier.app(appId), (app): Verdict => {
      if (!app) return refused('invalid_app_id');
      if (!('allowApp' in auth && auth.allowApp))
        return refused('forbidden', 'An App-Id may call gateway endpoints only.');
      return { kind: 'app', clientId, ...app };
    });
  }
  if (!apiKey) return refused('missing_api_key');
  return andThen(verifier.apiKey(hashApiKey(apiKey)), (key): Verdict => {
    if (!key) return refused('invalid_api_key');
    if (!key.scopes.includes(auth.scope)) {
      return refused('forbidden', `This API key lacks the "${auth.scope}" scope.`);
    }
    return key;
  });
}

/**
 * Rate limits count per verified credential: per API key. A wallet app's App-Id is public (every checkout page shows
 * one) and its Client-Id is whatever the caller sends, so its requests count per client, per address using the app,
 * and per app in total. Everything else, including requests that authentication refuses, counts per address, so
 * guessing keys is limited too.
 */
function callerLimits(
  request: FastifyRequest,
  principal: Principal | undefined,
  limiter: RateLimiter,
): { key: string; max: number }[] {
  if (principal?.kind === 'apiKey') return [{ key: `key:${principal.keyId}`, max: limiter.max }];
  if (principal?.kind === 'session') return [{ key: `session:${principal.sessionId}`, max: limiter.max }];
  if (principal?.kind === 'device') return [{ key: `device:${principal.deviceId}`, max: limiter.max }];
  if (principal?.kind === 'app') {
    return [
      { key: `app:${principal.appId}:${principal.clientId}`, max: limiter.max },
      { key: `app:${principal.appId}:ip:${request.ip}`, max: limiter.max },
      { key: `app:${principal.appId}`, max: limiter.appMax },
    ];
  }
  return [{ key: `ip:${request.ip}`, max: limiter.max }];
}

function rateLimits(
  request: FastifyRequest,
  principal: Principal | undefined,
  limiter: RateLimiter,
  perPayment: boolean,
): { key: string; max: number }[] {
  const limits = callerLimits(request, principal, limiter);
  const paymentId = (request.params as { id?: unknown } | undefined)?.id;
  if (!perPayment || principal === undefined || typeof paymentId !== 'string') return limits;
  return [...limits, { key: `payment:${paymentId.slice(0, 64)}`, max: limiter.paymentMax }];
}

/**
 * One hook per route: authenticates the caller of a route that declares `config.auth`, counts the request against
 * its rate limit (unless the route sets `config.rateLimit: false`), then resolves its API version and names it in
 * `Pay-Version` and `WCP-Version` (D3; a response refused before that names the requested version, see app.ts). It completes
 * synchronously when the credential is cached and the rate-limit store is in memory.
 */
export function registerAuth(app: FastifyInstance, verifier: CredentialVerifier, limiter: RateLimiter): void {
  app.decorateRequest('principal', undefined);
  app.decorateRequest('apiVersion', undefined);
  // The steps are made once and take the request as arguments, instead of closures made for every request.
  const settle = (
    request: FastifyRequest,
    reply: FastifyReply,
    verdict: Verdict | undefined,
    done: (error?: Error) => void,
  ) => {
    if (!verdict) return done();
    if (verdict instanceof ApiError) return done(verdict);
    try {
      request.apiVersion = resolveVersion(requestedVersion(request.headers), verdict.pinnedVersion);
    } catch (error) {
      return done(error as ApiError);
    }
    request.principal = verdict;
    nameVersion(reply, request.apiVersion);
    done();
  };
  const admit = (
    request: FastifyRequest,
    reply: FastifyReply,
    verdict: Verdict | undefined,
    limited: false | true | 'perPayment',
    done: (error?: Error) => void,
  ) => {
    if (!limited) return settle(request, reply, verdict, done);
    const principal = verdict instanceof ApiError ? undefined : verdict;
    limiter.hitAll(rateLimits(request, principal, limiter, limited === 'perPayment'), reply, (refusal) =>
      refusal ? done(refusal) : settle(request, reply, verdict, done),
    );
  };
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    const limited = route.config?.rateLimit ?? true;
    appendRouteHook(route, 'onRequest', (request, reply, done) => {
      const verdict = auth ? authenticate(request, auth, verifier) : undefined;
      if (verdict instanceof Promise) verdict.then((settled) => admit(request, reply, settled, limited, done), done);
      else admit(request, reply, verdict, limited, done);
    });
  });
}

/** The authenticated caller of a route that requires authentication. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`route ${request.routeOptions.url} has no auth config`);
  return request.principal;
}
