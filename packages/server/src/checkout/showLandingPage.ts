import type { FastifyReply } from 'fastify';
import type { App, AppContext } from '../context.ts';
import { REFERENCE_VERSION } from '../http/versions.ts';
import { SERVICE_VERSION } from '../version.ts';
import { checkoutAssetUrls } from './assets.ts';
import { checkoutContentSecurityPolicy } from './checkoutPolicy.ts';
import { renderLandingPage } from './landingPage.ts';

/** Answers with the landing page, its stylesheet and icon the checkout's (under the checkout's path `prefix`). */
export async function sendLandingPage(reply: FastifyReply, ctx: AppContext, prefix: string): Promise<FastifyReply> {
  const page = renderLandingPage({
    version: SERVICE_VERSION,
    apiVersion: REFERENCE_VERSION,
    baseUrl: ctx.config.baseUrl,
    checkoutUrl: ctx.config.checkoutUrl,
    assets: await checkoutAssetUrls(prefix),
  });
  return reply
    .header('content-security-policy', checkoutContentSecurityPolicy(ctx.config))
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page);
}

/**
 * The landing page at `/`: where the checkout's path is `/`, the checkout root answers it to a request without
 * `pid` (`showCheckoutPage.ts`); under a checkout path of its own, `/` is this route's.
 */
export function registerShowLandingPage(app: App, ctx: AppContext, prefix: string): void {
  if (prefix === '') return;
  app.get('/', { config: { auth: false }, schema: { hide: true } }, async (_request, reply) =>
    sendLandingPage(reply, ctx, prefix),
  );
}
