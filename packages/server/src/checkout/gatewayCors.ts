import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

/**
 * With `CHECKOUT_URL` on another origin than `BASE_URL` (D1), the checkout page calls the gateway cross-origin:
 * exactly that origin may, on gateway paths only, with the headers the page sends. Returns a step for the
 * service's request hook that adds the CORS headers and says whether it answered the request (a preflight).
 * The origins are read per request, as the addresses are final only once the server listens.
 */
export function checkoutGatewayCors(
  config: Pick<Config, 'baseUrl' | 'checkoutUrl'>,
): (request: FastifyRequest, reply: FastifyReply) => boolean {
  return (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || !request.url.startsWith('/v1/gateway/')) return false;
    const checkoutOrigin = new URL(config.checkoutUrl).origin;
    if (origin !== checkoutOrigin || checkoutOrigin === new URL(config.baseUrl).origin) return false;
    reply
      .header('access-control-allow-origin', origin)
      .header('vary', 'Origin')
      .header('access-control-expose-headers', 'retry-after, pay-version, wcp-version, request-id');
    if (request.method !== 'OPTIONS') return false;
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, POST')
      .header('access-control-allow-headers', 'app-id, client-id, content-type, pay-version, wcp-version')
      .header('access-control-max-age', '600')
      .send();
    return true;
  };
}
