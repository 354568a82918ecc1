import { Type } from '@sinclair/typebox';
import type { App } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { sendHashedAsset } from '../http/hashedAssetReply.ts';
import { checkoutAssets } from './assets.ts';

/**
 * The page's script, its messages, stylesheet and icon under content-hashed names, so they are cached for good;
 * compressed where the browser takes it, so a phone on a slow network loads the page's first screen sooner.
 */
export function registerServeCheckoutAsset(app: App, prefix: string): void {
  app.get(
    `${prefix}/assets/checkout/:file`,
    {
      config: { auth: false },
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 80 }) }) },
    },
    async (request, reply) => {
      const asset = (await checkoutAssets()).byName.get(request.params.file);
      if (!asset) throw ApiError.notFound('No such checkout asset.');
      return sendHashedAsset(asset, request.headers['accept-encoding'], reply);
    },
  );
  // Browsers ask the origin's root for an icon when a page names none (a JSON 404 would be their answer).
  app.get('/favicon.ico', { config: { auth: false }, schema: { hide: true } }, async (_request, reply) => {
    const { icon } = await checkoutAssets();
    return reply
      .header('cache-control', 'public, max-age=86400')
      .redirect(`${prefix}/assets/checkout/${icon.name}`, 302);
  });
}
