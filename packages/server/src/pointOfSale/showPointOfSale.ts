import { Type } from '@sinclair/typebox';
import { html, page } from '../checkout/html.ts';
import type { App } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { sendHashedAsset } from '../http/hashedAssetReply.ts';
import { POINT_OF_SALE_PATH } from './devices.ts';
import { pointOfSaleAssets } from './pointOfSaleAssets.ts';

const THEME_COLOR = '#17212b';

/**
 * The service worker: keeps the shell and this build's assets, so the till opens without a connection (and says it
 * needs one to charge); the shell is fetched first from the network, as it names the newest build. The API is never
 * cached.
 */
function serviceWorker(shellFiles: string[], version: string): string {
  return `const CACHE = 'pos-${version}';
const SHELL = ${JSON.stringify(shellFiles)};
self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});
self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname === '${POINT_OF_SALE_PATH}') {
    event.respondWith(fetch(event.request).catch(() => caches.match('${POINT_OF_SALE_PATH}')));
  } else if (SHELL.includes(url.pathname)) {
    event.respondWith(caches.match(url.pathname).then((kept) => kept || fetch(event.request)));
  }
});
`;
}

/**
 * The point of sale at `/pos`, an installable web app on the API's origin (which it calls with the device's key, so
 * no cross-origin rules are needed): its shell, its hashed assets, its manifest and its service worker.
 */
export function registerShowPointOfSale(app: App): void {
  const config = { auth: false as const };
  const assetPath = (name: string) => `${POINT_OF_SALE_PATH}/assets/${name}`;

  app.get(POINT_OF_SALE_PATH, { config, schema: { hide: true } }, async (_request, reply) => {
    const { script, style, icon } = await pointOfSaleAssets();
    const shell = page({
      title: 'Point of sale · paygate',
      stylesheet: assetPath(style.name),
      icon: assetPath(icon.name),
      head: html`<link rel="manifest" href="${POINT_OF_SALE_PATH}/manifest.webmanifest">
<meta name="theme-color" content="${THEME_COLOR}">
<script defer src="${assetPath(script.name)}"></script>`,
      body: html`<div id="pos"><p class="loading">Opening the till…</p></div>
<noscript><p class="loading">The point of sale needs JavaScript: turn it on for this site.</p></noscript>`,
    });
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(shell);
  });

  app.get(
    `${POINT_OF_SALE_PATH}/assets/:file`,
    { config, schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 80 }) }) } },
    async (request, reply) => {
      const asset = (await pointOfSaleAssets()).byName.get(request.params.file);
      if (!asset) throw ApiError.notFound('No such asset.');
      return sendHashedAsset(asset, request.headers['accept-encoding'], reply);
    },
  );

  app.get(`${POINT_OF_SALE_PATH}/manifest.webmanifest`, { config, schema: { hide: true } }, async (_request, reply) => {
    const { icon } = await pointOfSaleAssets();
    const manifest = {
      name: 'paygate point of sale',
      short_name: 'Till',
      start_url: POINT_OF_SALE_PATH,
      scope: POINT_OF_SALE_PATH,
      display: 'standalone',
      orientation: 'any',
      background_color: '#f5f7f9',
      theme_color: THEME_COLOR,
      icons: [{ src: assetPath(icon.name), sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
    };
    return reply.header('cache-control', 'no-cache').type('application/manifest+json').send(JSON.stringify(manifest));
  });

  app.get(`${POINT_OF_SALE_PATH}/sw.js`, { config, schema: { hide: true } }, async (_request, reply) => {
    const { script, style, icon } = await pointOfSaleAssets();
    const files = [
      POINT_OF_SALE_PATH,
      `${POINT_OF_SALE_PATH}/manifest.webmanifest`,
      ...[script, style, icon].map((a) => assetPath(a.name)),
    ];
    return (
      reply
        // The worker serves the page at `/pos` itself, one level above the folder of its script.
        .header('service-worker-allowed', POINT_OF_SALE_PATH)
        .header('cache-control', 'no-cache')
        .type('text/javascript; charset=utf-8')
        .send(serviceWorker(files, script.name.split('.')[1] ?? 'current'))
    );
  });
}
