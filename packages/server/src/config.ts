import path from 'node:path';
import { UserFacingError } from './userFacingError.ts';
import { DataEncryptionKey } from './dataEncryptionKey.ts';
import type { LogFormat } from './log.ts';

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  checkoutUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * A direct connection for what needs a session of its own (LISTEN, the job workers' and chain followers' locks),
   * when DATABASE_URL goes through a pooler in transaction mode; DATABASE_URL otherwise.
   */
  databaseSessionUrl: string | undefined;
  /** Whether the hottest statements are prepared per connection (named); off behind a pooler that cannot keep them. */
  databasePreparedStatements: boolean;
  redisUrl: string | undefined;
  /** `devnet`, `mainnet`, or a JSON file of networks. */
  chains: string;
  /** Where token prices come from (D13): the fixed example table or Coinbase's exchange rates. */
  priceSource: 'fixed' | 'coinbase';
  demoPartner: 'auto' | 'always' | 'never';
  logLevel: string;
  /** JSON lines for a log collector, or one short line per entry for a person at a terminal. */
  logFormat: LogFormat;
  /** Fastify's line per request at `info` (LOG_REQUESTS=true); at `debug` otherwise. */
  logRequests: boolean;
  bodyLimitBytes: number;
  /** How long a client may take to send a whole request, and its headers: slow senders are cut off. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** Long-polls one payment may hold at once per process; more are answered at once. */
  longPollsPerPayment: number;
  trustProxy: boolean;
  /**
   * Requests per window: `max` per API key, per client address, and per wallet app's Client-Id and per address using
   * it; `appMax` per wallet App-Id in total, since an App-Id is public and Client-Ids are the caller's to invent;
   * `paymentMax` per payment for the gateway calls that read chains (options, fetch, confirm).
   */
  rateLimit: { max: number; appMax: number; paymentMax: number; windowMs: number };
  authCacheTtlMs: number;
  merchantCacheTtlMs: number;
  /** How long `/metrics` reuses its reading of the nodes, the collector and the queues before it reads them again. */
  healthMetricsIntervalMs: number;
  databasePoolSize: number;
  /** Background jobs (submissions, webhook deliveries, expiries) each process runs at once; none waits on a chain. */
  jobConcurrency: number;
  /** How long a confirm naming the buyer's own transfer waits for it to be mined before the payment fails. */
  buyerTransferDeadlineMs: number;
  logo: { timeoutMs: number };
  /** Webhook endpoints may be on private addresses: the operator's receivers inside its own network. */
  webhookAllowPrivateHosts: boolean;
  /**
   * Address screening (off by default): against the list the operator loads, or an HTTP screening service; when
   * the provider cannot answer, `closed` refuses and `open` goes on unscreened.
   */
  screening:
    | { provider: 'off' }
    | { provider: 'list'; onFailure: 'closed' | 'open' }
    | { provider: 'http'; url: string; timeoutMs: number; onFailure: 'closed' | 'open' };
  /** Batching of merchant settlements (D16): how often batches are made and sent, and the smallest one sent. */
  settlement: { intervalMs: number; minimumBatch: string };
  /** Encrypts buyer data at rest; from DATA_ENCRYPTION_KEY, or kept in DATA_DIR by `start` on a local setup. */
  dataEncryptionKey: DataEncryptionKey | undefined;
  /** How long an x402 settle waits for its payment to be final before it answers `settlement_pending`. */
  x402SettleWaitMs: number;
  /**
   * Dashboard sign-in: how long a session lasts, how long a one-time link can be used, and how many sign-in
   * attempts one address may make per window (each counts, so guessing keys is slow).
   */
  dashboard: { sessionMs: number; linkMs: number; signInMax: number; signInWindowMs: number };
}

export class ConfigError extends UserFacingError {}

function rateLimits(env: Env): Config['rateLimit'] {
  const max = integer(env, 'RATE_LIMIT_MAX', 600, 1, 1_000_000_000);
  return {
    max,
    appMax: integer(env, 'APP_RATE_LIMIT_MAX', Math.min(100 * max, 1_000_000_000), 1, 1_000_000_000),
    paymentMax: integer(env, 'PAYMENT_RATE_LIMIT_MAX', Math.min(max, 120), 1, 1_000_000_000),
    windowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 100, 3_600_000),
  };
}

/** Node requires the headers' deadline within the whole request's. */
function requestTimeouts(env: Env): Pick<Config, 'requestTimeoutMs' | 'headersTimeoutMs'> {
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000);
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 1_000, 600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  return { requestTimeoutMs, headersTimeoutMs };
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** A person reads a terminal, a log collector reads a pipe or a file: the default follows where stdout goes. */
function logFormat(env: Env, stdoutIsTerminal: boolean): LogFormat {
  const raw = env.LOG_FORMAT;
  if (raw === undefined || raw === '') return stdoutIsTerminal ? 'pretty' : 'json';
  if (raw === 'json' || raw === 'pretty') return raw;
  throw new ConfigError(`LOG_FORMAT must be json or pretty, got "${raw}"`);
}

function decimal(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,30}(?:\.\d{1,18})?$/.test(raw))
    throw new ConfigError(`${name} must be a decimal number such as 10 or 0.5, got "${raw}"`);
  return raw;
}

function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must use http or https`);
  return url.toString().replace(/\/+$/, '');
}

function dataEncryptionKey(env: Env): DataEncryptionKey | undefined {
  const raw = env.DATA_ENCRYPTION_KEY;
  if (!raw) return undefined;
  try {
    return DataEncryptionKey.parse(raw, 'DATA_ENCRYPTION_KEY');
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

function screening(env: Env): Config['screening'] {
  const provider = env.SCREENING || 'off';
  const onFailure = env.SCREENING_ON_FAILURE || 'closed';
  if (onFailure !== 'closed' && onFailure !== 'open') {
    throw new ConfigError(`SCREENING_ON_FAILURE must be closed or open, got "${onFailure}"`);
  }
  if (provider === 'off') return { provider };
  if (provider === 'list') return { provider, onFailure };
  if (provider === 'http') {
    if (!env.SCREENING_URL) throw new ConfigError('SCREENING=http needs SCREENING_URL, the screening service');
    return {
      provider,
      url: httpUrl(env, 'SCREENING_URL', ''),
      timeoutMs: integer(env, 'SCREENING_TIMEOUT_MS', 2_000, 100, 60_000),
      onFailure,
    };
  }
  throw new ConfigError(`SCREENING must be off, list or http, got "${provider}"`);
}

/** Reads the service configuration from environment variables; every variable is listed in the README. */
export function loadConfig(env: Env = process.env, stdoutIsTerminal = process.stdout.isTTY === true): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const baseUrl = httpUrl(env, 'BASE_URL', `http://localhost:${port}`);
  const demoPartner = env.DEMO_PARTNER || 'auto';
  if (!['auto', 'always', 'never'].includes(demoPartner)) {
    throw new ConfigError(`DEMO_PARTNER must be auto, always or never, got "${demoPartner}"`);
  }
  const chains = env.CHAINS || 'devnet';
  const priceSource = env.PRICE_SOURCE || (chains === 'devnet' ? 'fixed' : 'coinbase');
  if (priceSource !== 'fixed' && priceSource !== 'coinbase') {
    throw new ConfigError(`PRICE_SOURCE must be fixed or coinbase, got "${priceSource}"`);
  }
  return {
    port,
    host: env.HOST || '127.0.0.1',
    baseUrl,
    checkoutUrl: httpUrl(env, 'CHECKOUT_URL', baseUrl),
    dataDir: path.resolve(env.DATA_DIR || '.paygate'),
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSessionUrl: env.DATABASE_SESSION_URL || undefined,
    databasePreparedStatements: boolean(env, 'DATABASE_PREPARED_STATEMENTS', true),
    redisUrl: env.REDIS_URL || undefined,
    chains,
    priceSource,
    demoPartner: demoPartner as Config['demoPartner'],
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: logFormat(env, stdoutIsTerminal),
    logRequests: boolean(env, 'LOG_REQUESTS', false),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    ...requestTimeouts(env),
    longPollsPerPayment: integer(env, 'LONG_POLLS_PER_PAYMENT', 1_000, 1, 1_000_000),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    rateLimit: rateLimits(env),
    authCacheTtlMs: integer(env, 'AUTH_CACHE_TTL_MS', 5_000, 0, 60_000),
    merchantCacheTtlMs: integer(env, 'MERCHANT_CACHE_TTL_MS', 5_000, 0, 60_000),
    healthMetricsIntervalMs: integer(env, 'HEALTH_METRICS_INTERVAL_MS', 60_000, 0, 3_600_000),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 20, 2, 500),
    jobConcurrency: integer(env, 'JOB_CONCURRENCY', 16, 1, 200),
    buyerTransferDeadlineMs: integer(env, 'BUYER_TRANSFER_DEADLINE_MS', 15 * 60_000, 10_000, 86_400_000),
    logo: { timeoutMs: integer(env, 'LOGO_FETCH_TIMEOUT_MS', 8_000, 100, 60_000) },
    webhookAllowPrivateHosts: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_HOSTS', false),
    screening: screening(env),
    settlement: {
      // Seconds on the devnet so a demo sees merchants paid; fewer, larger batches cost less gas on real chains.
      intervalMs: integer(
        env,
        'SETTLEMENT_INTERVAL_MS',
        (env.CHAINS || 'devnet') === 'devnet' ? 10_000 : 900_000,
        100,
        86_400_000,
      ),
      minimumBatch: decimal(env, 'SETTLEMENT_MIN_BATCH', '0'),
    },
    dataEncryptionKey: dataEncryptionKey(env),
    // Below the 90 s x402's HTTP facilitator client waits for an answer.
    x402SettleWaitMs: integer(env, 'X402_SETTLE_WAIT_MS', 40_000, 0, 85_000),
    dashboard: {
      sessionMs: integer(env, 'DASHBOARD_SESSION_MINUTES', 8 * 60, 1, 30 * 24 * 60) * 60_000,
      linkMs: integer(env, 'DASHBOARD_LINK_MINUTES', 15, 1, 24 * 60) * 60_000,
      signInMax: integer(env, 'DASHBOARD_SIGN_IN_MAX', 10, 1, 1_000_000),
      signInWindowMs: integer(env, 'DASHBOARD_SIGN_IN_WINDOW_MS', 15 * 60_000, 1_000, 86_400_000),
    },
  };
}
