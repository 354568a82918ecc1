import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';

const LOGO_FILE = /^[a-f0-9]{64}\.(jpg|png|webp|avif)$/;

/** Serves stored logos; content-addressed names never change content, so they are cached for good. */
export function registerServeLogo(app: App, ctx: AppContext): void {
  app.get(
    '/assets/logos/:file',
    {
      config: { auth: false },
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 80 }) }) },
    },
    async (request, reply) => {
      const { file } = request.params;
      const logo = LOGO_FILE.test(file)
        ? await ctx.db.selectFrom('logos').select(['bytes', 'content_type']).where('file', '=', file).executeTakeFirst()
        : undefined;
      if (!logo) throw ApiError.notFound('No such logo.');
      return reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('cross-origin-resource-policy', 'cross-origin')
        .type(logo.content_type)
        .send(logo.bytes);
    },
  );
}
