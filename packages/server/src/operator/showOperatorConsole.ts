import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { html, page } from '../checkout/html.ts';
import type { App } from '../context.ts';
import { consoleAssets } from '../dashboard/consoleAssets.ts';
import { ApiError } from '../http/errors.ts';
import { API_VERSIONS } from '../http/versions.ts';

/** Paths under `/operator` that are the console's own endpoints, never a page of its client. */
const NOT_A_PAGE = /^(api|link|assets)(\/|$)/;

/**
 * The operator console's one page: every path under `/operator` answers the same shell, and its script shows the
 * page the path names (the sign-in page, which explains the one-time link, without a session). The API versions a
 * partner can be pinned to come with it.
 */
export function registerShowOperatorConsole(app: App): void {
  const settings = { 'data-api-versions': JSON.stringify(API_VERSIONS.map((entry) => entry.version)) };

  async function respond(reply: FastifyReply) {
    const { operatorScript, style, icon } = await consoleAssets();
    const shell = page({
      title: 'Operator console · paygate',
      stylesheet: `/operator/assets/${style.name}`,
      icon: `/operator/assets/${icon.name}`,
      head: html`<script defer src="/operator/assets/${operatorScript.name}"></script>`,
      bodyAttributes: settings,
      body: html`<div id="operator"><p class="loading">Loading the operator console…</p></div>
<noscript><p class="loading">The operator console needs JavaScript: turn it on for this site, or use the paygate commands.</p></noscript>`,
    });
    // The shell names the current build's assets, so it is never kept.
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(shell);
  }

  const config = { auth: false as const };
  app.get('/operator', { config, schema: { hide: true } }, async (_request, reply) => respond(reply));
  app.get(
    '/operator/*',
    { config, schema: { hide: true, params: Type.Object({ '*': Type.String() }) } },
    async (request, reply) => {
      if (NOT_A_PAGE.test(request.params['*'])) throw ApiError.notFound('Not found.');
      return respond(reply);
    },
  );
}
