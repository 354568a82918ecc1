import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import helmet from 'helmet';
import type { App, AppContext } from './context.ts';
import fastifyCookie from '@fastify/cookie';
import { registerAuth } from './http/auth.ts';
import { answerClientError, MAX_PARAM_LENGTH, registerErrorHandlers, replyWithError } from './http/errorHandler.ts';
import { registerOpsRoutes } from './http/ops.ts';
import { RequestLines, requestLogger } from './http/requestLogger.ts';
import { registerRequestMetrics } from './http/requestMetrics.ts';
import { RouteMethods } from './http/routeMethods.ts';
import { registerValidators } from './http/validation.ts';
import { registerOpenApi } from './http/openApi.ts';
import { ApiError } from './http/errors.ts';
import { echoedVersion, nameVersion } from './http/versions.ts';
import { registerMerchantRoutes } from './merchants/routes.ts';
import { registerWebhookRoutes } from './webhooks/routes.ts';
import { registerRefundRoutes } from './refunds/routes.ts';
import { registerSettlementRoutes } from './settlement/routes.ts';
import { registerListNetworks } from './networks/listNetworks.ts';
import { registerPaymentRoutes } from './payments/routes.ts';
import { registerPaymentLinkRoutes } from './paymentLinks/routes.ts';
import { registerGatewayRoutes } from './gateway/routes.ts';
import { registerCollectFormRoutes } from './checkout/collect/collectFormRoutes.ts';
import { registerCheckoutRoutes } from './checkout/routes.ts';
import { registerDashboardRoutes } from './dashboard/routes.ts';
import { registerApiKeyRoutes } from './partners/routes.ts';
import { registerOperatorRoutes } from './operator/routes.ts';
import { checkoutGatewayCors } from './checkout/gatewayCors.ts';
import { registerX402Routes } from './x402/routes.ts';
import { registerPointOfSaleRoutes } from './pointOfSale/routes.ts';

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

/**
 * The first header (lower case) whose value holds bytes outside ASCII: Node reads them as Latin-1, so a key or an id
 * with one would be compared as some other text; refused, naming the header, as WalletConnect Pay does.
 */
function headerNotAscii(rawHeaders: string[]): string | undefined {
  for (let index = 1; index < rawHeaders.length; index += 2) {
    if (/[\u0080-\uffff]/.test(rawHeaders[index] as string)) return (rawHeaders[index - 1] as string).toLowerCase();
  }
  return undefined;
}

/**
 * Builds the HTTP application from a runtime's context; it opens nothing of its own. Listening, closing and the
 * process lifecycle are the caller's.
 */
export async function buildApp(ctx: AppContext): Promise<App> {
  const { config, metrics } = ctx;
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    childLoggerFactory: requestLogger,
    logController: new RequestLines(config.logRequests),
    bodyLimit: config.bodyLimitBytes,
    // A client that sends its request slowly is cut off (408) instead of holding a connection; timeouts are
    // checked every second rather than Node's default 30 s.
    requestTimeout: config.requestTimeoutMs,
    // A request without Host is refused below with the error body, not by Node with an empty 400.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1_000, requireHostHeader: false },
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: replyWithError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // JSON is the only request body the API speaks; anything else is refused as invalid_params (D18).
  app.removeContentTypeParser('text/plain');
  registerValidators(app);
  registerErrorHandlers(app, new RouteMethods());
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
    nameVersion(reply, echoedVersion(request.headers));
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      done(new ApiError('invalid_params', 'An HTTP/1.1 request must send a Host header.'));
      return;
    }
    if (!request.url.startsWith('/v1/')) {
      applyPageSecurityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
      return;
    }
    reply.headers(API_SECURITY_HEADERS);
    const notAscii = headerNotAscii(request.raw.rawHeaders);
    if (notAscii) {
      done(
        new ApiError('header_not_ascii', `The ${notAscii} header holds characters outside ASCII.`, {
          header: notAscii,
        }),
      );
      return;
    }
    if (request.headers.origin !== undefined && answeredCheckoutCors(request, reply)) return;
    done();
  });

  // When the app closes, long-polls answer at once, and each answer from then on closes its connection: the
  // keep-alive connections idle when the close begins are closed then, but one whose request was in flight would stay
  // open after its answer and hold the close (and the process's graceful stop) until its keep-alive timeout.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    ctx.statusWaiter.stop();
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  await app.register(fastifyCookie);
  registerAuth(app, ctx.credentials, ctx.rateLimiter);

  await registerOpenApi(app, config.baseUrl);

  registerOpsRoutes(app, ctx, metrics);
  registerMerchantRoutes(app, ctx);
  registerPaymentRoutes(app, ctx);
  registerPaymentLinkRoutes(app, ctx);
  registerGatewayRoutes(app, ctx);
  await registerCollectFormRoutes(app, ctx);
  registerCheckoutRoutes(app, ctx);
  registerApiKeyRoutes(app, ctx);
  registerDashboardRoutes(app, ctx);
  await registerOperatorRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  registerRefundRoutes(app, ctx);
  registerSettlementRoutes(app, ctx);
  registerListNetworks(app, ctx);
  registerX402Routes(app, ctx);
  registerPointOfSaleRoutes(app, ctx);
  return app;
}
