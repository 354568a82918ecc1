import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { ApiVersionView, toApiVersionView } from './apiVersionResource.ts';

/** The partner's pinned API version, read from the database so a pin made a moment ago shows at once. */
export function registerShowApiVersion(app: App, ctx: AppContext): void {
  app.get(
    '/v1/api-version',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['api keys'],
        summary: "Show the partner's API version",
        response: { 200: ApiVersionView, ...errorResponses() },
      },
    },
    async (request) => {
      const partner = await ctx.db
        .selectFrom('partners')
        .select('pinned_version')
        .where('id', '=', principalOf(request).partnerId)
        .executeTakeFirstOrThrow();
      return toApiVersionView(partner.pinned_version);
    },
  );
}
