import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import helmet from 'helmet';
import { Redis } from 'ioredis';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { App, AppContext } from './context.ts';
import { CredentialVerifier, registerAuth, type RouteAuth } from './http/auth.ts';
import { MemoryRateLimitStore, RateLimiter, RedisRateLimitStore } from './http/rateLimit.ts';
import { registerErrorHandlers } from './http/errorHandler.ts';
import { CursorCodec } from './http/cursor.ts';
import { registerOpsRoutes } from './http/ops.ts';
import { requestLogger } from './http/requestLogger.ts';
import { registerRequestMetrics } from './http/requestMetrics.ts';
import { serviceSecret } from './db/serviceSecrets.ts';
import { registerValidators } from './http/validation.ts';
import { API_VERSIONS, echoedVersion, REFERENCE_VERSION } from './http/versions.ts';
import { registerMerchantRoutes } from './merchants/routes.ts';
import { registerWebhookRoutes } from './webhooks/routes.ts';
import { registerPaymentRoutes } from './payments/routes.ts';
import { registerGatewayRoutes } from './gateway/routes.ts';
import { registerCollectFormRoutes } from './checkout/collect/collectFormRoutes.ts';
import { registerCheckoutRoutes } from './checkout/routes.ts';
import { checkoutGatewayCors } from './checkout/gatewayCors.ts';
import { PaymentStatusWaiter } from './payments/statusWaiter.ts';
import { DatabaseNotifications, registerNotificationMetrics } from './db/notifications.ts';
import { MERCHANT_CHANGED_CHANNEL, registerMerchantCacheMetrics } from './merchants/merchantCache.ts';
import { registerSettlementMetrics } from './settlement/metrics.ts';
import { createLogger } from './log.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * The API's JSON responses carry the headers that matter for JSON (OWASP's REST set): no caching, no framing, no
 * sniffing, HTTPS only, and a CSP that allows nothing. Pages (checkout, docs) get helmet's fuller set instead;
 * fewer headers per API response is a measurable share of the API's per-request cost.
 */
const API_SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

function securityFor(auth: RouteAuth | undefined) {
  if (!auth) return [];
  const keys = [{ ApiKey: [] }, { BearerApiKey: [] }];
  return auth.allowApp ? [...keys, { AppId: [], ClientId: [] }] : keys;
}

export interface BuiltApp {
  app: App;
  /** The registry `/metrics` serves, for what the process adds beside the app (its chain followers). */
  metrics: Registry;
  close(): Promise<void>;
}

/** Builds the HTTP application from a context; listening and process lifecycle are the caller's. */
export async function buildApp(ctx: AppContext): Promise<BuiltApp> {
  const { config } = ctx;
  const logger = ctx.logger ?? createLogger(config.logLevel);
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    childLoggerFactory: requestLogger,
    bodyLimit: config.bodyLimitBytes,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy: config.trustProxy,
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // JSON is the only request body the API speaks; anything else is refused as invalid_params (D18).
  app.removeContentTypeParser('text/plain');
  registerValidators(app);
  registerErrorHandlers(app);
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  registerRequestMetrics(app, metrics);

  // One helmet middleware built at start: @fastify/helmet rebuilds it (and re-parses the CSP) on every request.
  const applyPageSecurityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
      },
    },
  });
  const answeredCheckoutCors = checkoutGatewayCors(config);
  // Every response carries its request id and an API version (D3); authentication replaces the version with the
  // one the request runs under. One hook for all of it: each hook is a step of every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('request-id', request.id);
    reply.header('pay-version', echoedVersion(request.headers));
    if (!request.url.startsWith('/v1/')) {
      applyPageSecurityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
      return;
    }
    reply.headers(API_SECURITY_HEADERS);
    if (request.headers.origin !== undefined && answeredCheckoutCors(request, reply)) return;
    done();
  });

  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  // Requests go on unlimited while Redis is away; say so in the log rather than on stderr.
  redis?.on('error', (error: Error) =>
    app.log.warn(`rate limit store (Redis) unavailable, requests are not rate limited: ${error.message}`),
  );
  const rateLimitStore = redis ? new RedisRateLimitStore(redis) : new MemoryRateLimitStore();
  const limiter = new RateLimiter(rateLimitStore, config.rateLimit.max, config.rateLimit.windowMs);
  registerAuth(app, new CredentialVerifier(ctx.db, config.authCacheTtlMs), limiter);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'paygate API',
        version: REFERENCE_VERSION,
        description: `Payment acceptance API. Known versions (Pay-Version header): ${API_VERSIONS.map((v) => v.version).join(', ')}.`,
      },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key' },
          BearerApiKey: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' },
          AppId: { type: 'apiKey', in: 'header', name: 'App-Id' },
          ClientId: { type: 'apiKey', in: 'header', name: 'Client-Id' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const auth = route.config?.auth as RouteAuth | undefined;
      return { schema: { ...schema, security: securityFor(auth) } as typeof schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: false } });

  registerOpsRoutes(app, ctx, metrics);
  registerSettlementMetrics(metrics, ctx.db);
  const cursors = new CursorCodec(await serviceSecret(ctx.db, 'cursor-signing'));
  const notifications = new DatabaseNotifications(ctx.databaseUrl, logger.child({ component: 'notifications' }));
  const statusWaiter = new PaymentStatusWaiter(notifications);
  notifications.subscribe(MERCHANT_CHANGED_CHANNEL, ctx.merchants);
  await notifications.start();
  registerNotificationMetrics(metrics, notifications);
  registerMerchantCacheMetrics(metrics, ctx.merchants);
  registerMerchantRoutes(app, ctx, cursors);
  registerPaymentRoutes(app, ctx, cursors, statusWaiter);
  registerGatewayRoutes(app, ctx, statusWaiter);
  await registerCollectFormRoutes(app, ctx);
  registerCheckoutRoutes(app, ctx);
  registerWebhookRoutes(app, ctx, cursors);

  return {
    app,
    metrics,
    close: async () => {
      // Long-polls answer at once instead of holding the shutdown for up to 30 s.
      statusWaiter.stop();
      await notifications.stop();
      await app.close();
      redis?.disconnect();
    },
  };
}
