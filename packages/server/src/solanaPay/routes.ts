import type { App, AppContext } from '../context.ts';
import { registerGetTransactionRequest } from './getTransactionRequest.ts';
import { registerPostTransactionRequest } from './postTransactionRequest.ts';

/** Solana Pay transaction requests, called by wallets from any origin without credentials. */
export function registerSolanaPayRoutes(app: App, ctx: AppContext): void {
  registerGetTransactionRequest(app, ctx);
  registerPostTransactionRequest(app, ctx);
  // The preflight of a cross-origin POST with a JSON body.
  app.options(
    '/v1/solana-pay/requests/:reference',
    { config: { auth: false, rateLimit: false }, schema: { hide: true } },
    async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'content-type')
        .header('access-control-max-age', '600')
        .send(),
  );
}
