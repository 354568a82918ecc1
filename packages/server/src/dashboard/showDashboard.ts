import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { html, page } from '../checkout/html.ts';
import type { App, AppContext } from '../context.ts';
import { SCOPES } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { API_VERSIONS, versionHas } from '../http/versions.ts';
import { EVENT_TYPES } from '../webhooks/events.ts';
import { consoleAssets } from './consoleAssets.ts';

/** Paths under `/dashboard` that are the dashboard's own endpoints, never a page of its client. */
const NOT_A_PAGE = /^(api|link|assets)(\/|$)/;

/**
 * What the client needs beside the API, known to the service only: explorers by CAIP-2 id (for transaction links;
 * the API does not name them), the API versions whose payment list filters by `cancelled`, the webhook event
 * types an endpoint can receive, and every scope a key can have.
 */
function clientSettings(ctx: AppContext): Record<string, string> {
  const explorerUrls = Object.fromEntries(
    ctx.chains.networks.flatMap((network) => (network.explorerUrl ? [[network.caip2, network.explorerUrl]] : [])),
  );
  const cancelledStatusVersions = API_VERSIONS.map((entry) => entry.version).filter((version) =>
    versionHas(version, 'payment-list-cancelled-status'),
  );
  return {
    'data-explorer-urls': JSON.stringify(explorerUrls),
    'data-cancelled-status-versions': JSON.stringify(cancelledStatusVersions),
    'data-webhook-event-types': JSON.stringify(EVENT_TYPES),
    'data-scopes': JSON.stringify(SCOPES),
  };
}

/**
 * The dashboard's one page: every path under `/dashboard` answers the same shell, and its script shows the page the
 * path names (signing in first when the browser has no session). Its script and stylesheet are the service's own,
 * under the page security headers every non-API path gets (scripts from this origin only).
 */
export function registerShowDashboard(app: App, ctx: AppContext): void {
  const settings = clientSettings(ctx);

  async function respond(reply: FastifyReply) {
    const { dashboardScript, style, icon } = await consoleAssets();
    const shell = page({
      title: 'Dashboard · paygate',
      stylesheet: `/dashboard/assets/${style.name}`,
      icon: `/dashboard/assets/${icon.name}`,
      head: html`<script defer src="/dashboard/assets/${dashboardScript.name}"></script>`,
      bodyAttributes: settings,
      body: html`<div id="dashboard"><p class="loading">Loading the dashboard…</p></div>
<noscript><p class="loading">The dashboard needs JavaScript: turn it on for this site, or use the API.</p></noscript>`,
    });
    // The shell names the current build's assets, so it is never kept.
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(shell);
  }

  const config = { auth: false as const };
  app.get('/dashboard', { config, schema: { hide: true } }, async (_request, reply) => respond(reply));
  app.get(
    '/dashboard/*',
    { config, schema: { hide: true, params: Type.Object({ '*': Type.String() }) } },
    async (request, reply) => {
      if (NOT_A_PAGE.test(request.params['*'])) throw ApiError.notFound('Not found.');
      return respond(reply);
    },
  );
}
