import { Redis } from 'ioredis';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { ChainRegistry } from './chains/registry.ts';
import { registerRpcMetrics } from './chains/rpcEndpoints.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Db } from './db/database.ts';
import { DatabaseNotifications, registerNotificationMetrics } from './db/notifications.ts';
import { serviceSecret } from './db/serviceSecrets.ts';
import type { ChainServices } from './gateway/chainServices.ts';
import { FormTokenSigner } from './gateway/dataCollection/formToken.ts';
import { CredentialVerifier } from './http/auth.ts';
import { CursorCodec } from './http/cursor.ts';
import { MemoryRateLimitStore, RateLimiter, RedisRateLimitStore } from './http/rateLimit.ts';
import { createLogger, type Logger } from './log.ts';
import type { LogoFetchOptions } from './merchants/logo.ts';
import { MERCHANT_CHANGED_CHANNEL, MerchantCache, registerMerchantCacheMetrics } from './merchants/merchantCache.ts';
import { registerHealthMetrics } from './operator/healthMetrics.ts';
import type { AddressScreening } from './screening/addressScreening.ts';
import { screeningFromConfig } from './screening/screeningFromConfig.ts';
import { PaymentStatusWaiter } from './payments/statusWaiter.ts';
import type { WebhookDeliveryOptions } from './webhooks/deliveryOptions.ts';

/** What a process brings to its runtime: its settings, its database and chains, and what its caller overrides. */
export interface RuntimeParts {
  config: Config;
  db: Db;
  databaseUrl: string;
  chains: ChainRegistry;
  clock: Clock;
  /** Without chain services the gateway offers and confirms nothing. */
  chainServices?: ChainServices;
  /** A logger of the caller's; one at `config.logLevel` otherwise. */
  logger?: Logger;
  /** The screening the caller's chain services screen deposits with, shared; from `config.screening` otherwise. */
  screening?: AddressScreening;
  /** Test entry points only: the logo fetch and webhook delivery against private test hosts, and their timings. */
  logoFetch?: Partial<LogoFetchOptions>;
  webhookDelivery?: Partial<WebhookDeliveryOptions>;
}

export interface Runtime {
  ctx: AppContext;
  /** Closes what the runtime opened: long-polls answer at once (if not told before), LISTEN and Redis close. */
  stop(): Promise<void>;
}

/**
 * The one composition root of a process's long-lived parts: logger, merchant cache, signers keyed from the shared
 * service secrets, the LISTEN connection and the long-poll waiter on it, the rate limiter and its store, and the
 * metrics registry. `main.ts` and the test servers build their context here; the HTTP app only reads it.
 */
export async function createRuntime(parts: RuntimeParts): Promise<Runtime> {
  const { config, db } = parts;
  const logger = parts.logger ?? createLogger(config.logLevel, { format: config.logFormat });
  const merchants = new MerchantCache(db, { ttlMs: config.merchantCacheTtlMs });
  const [cursorSecret, formTokenSecret] = await Promise.all([
    serviceSecret(db, 'cursor-signing'),
    serviceSecret(db, 'buyer-data-form-token'),
  ]);

  const notifications = new DatabaseNotifications(parts.databaseUrl, logger.child({ component: 'notifications' }));
  const statusWaiter = new PaymentStatusWaiter(notifications, config.longPollsPerPayment);
  notifications.subscribe(MERCHANT_CHANGED_CHANNEL, merchants);
  await notifications.start();

  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  // Requests go on unlimited while Redis is away; the log says so.
  redis?.on('error', (error: Error) =>
    logger.warn(`rate limit store (Redis) unavailable, requests are not rate limited: ${error.message}`),
  );
  const redisStore = redis ? new RedisRateLimitStore(redis) : undefined;
  // In memory, each limiter counts in a store of its own: no flood of API requests reaches the sign-in counters.
  const storeForLimiter = () => redisStore ?? new MemoryRateLimitStore();

  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  registerNotificationMetrics(metrics, notifications);
  registerMerchantCacheMetrics(metrics, merchants);
  registerRpcMetrics(metrics);

  // The operator's setting lets every endpoint be private; a test entry point may override more.
  const webhookDelivery = config.webhookAllowPrivateHosts
    ? { allowPrivateHosts: true, ...parts.webhookDelivery }
    : parts.webhookDelivery;
  const ctx: AppContext = {
    config,
    db,
    databaseUrl: parts.databaseUrl,
    chains: parts.chains,
    clock: parts.clock,
    logger,
    merchants,
    cursors: new CursorCodec(cursorSecret),
    formTokens: new FormTokenSigner(formTokenSecret),
    statusWaiter,
    rateLimiter: new RateLimiter(
      storeForLimiter(),
      config.rateLimit.max,
      config.rateLimit.windowMs,
      config.rateLimit.appMax,
      config.rateLimit.paymentMax,
    ),
    signInLimiter: new RateLimiter(storeForLimiter(), config.dashboard.signInMax, config.dashboard.signInWindowMs),
    credentials: new CredentialVerifier(db, config.authCacheTtlMs),
    metrics,
    screening:
      parts.screening ??
      screeningFromConfig(config.screening, db, (message) => logger.child({ component: 'screening' }).warn(message)),
    ...(parts.chainServices ? { chainServices: parts.chainServices } : {}),
    ...(parts.logoFetch ? { logoFetch: parts.logoFetch } : {}),
    ...(webhookDelivery ? { webhookDelivery } : {}),
  };
  registerHealthMetrics(metrics, ctx);
  return {
    ctx,
    stop: async () => {
      statusWaiter.stop();
      await notifications.stop();
      redis?.disconnect();
    },
  };
}
