import { Type } from '@sinclair/typebox';
import type { App } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { checkoutAssets } from './assets.ts';

/** The page's script and stylesheet under content-hashed names, so they are cached for good. */
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
      return reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .type(asset.contentType)
        .send(asset.body);
    },
  );
}
