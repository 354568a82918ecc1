import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App, AppContext } from '../context.ts';
import { principalOf, SCOPES } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { isKnownVersion, isWellFormedVersion } from '../http/versions.ts';
import { requireScopesHeld } from './apiKeyResource.ts';
import { ApiVersionView, toApiVersionView } from './apiVersionResource.ts';

const PinBody = Type.Object(
  { version: Type.String({ minLength: 1, maxLength: 32, description: 'A known API version, not older than the pin' }) },
  { additionalProperties: false },
);

/**
 * Moves the partner's pin to a newer API version. The pin changes how every key of the partner is answered, so only
 * credentials holding every scope may move it; it moves forward only, as requests may not ask for a version older
 * than the pin (the operator can set any version with `paygate partner pin-version`).
 */
export function registerPinApiVersion(app: App, ctx: AppContext): void {
  app.put(
    '/v1/api-version',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['api keys'],
        summary: "Pin the partner's API version",
        description:
          'Requests without a Pay-Version header run under the pinned version. Needs credentials with every scope (403 forbidden otherwise); a version older than the pin is refused (400 api_version_downgrade).',
        body: PinBody,
        response: { 200: ApiVersionView, ...errorResponses() },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      requireScopesHeld(principal, SCOPES);
      const { version } = request.body;
      if (!isWellFormedVersion(version)) {
        throw new ApiError(
          'invalid_api_version',
          `"${version}" is not an API version; use YYYY-MM-DD or YYYY-MM-DD.preview.`,
        );
      }
      if (!isKnownVersion(version)) throw new ApiError('unknown_api_version', `API version ${version} does not exist.`);
      // One statement, so two pins at once cannot move the pin backwards; versions order as bytes (a preview after
      // the plain version of its date), whatever the database's collation.
      const pinned = await ctx.db
        .updateTable('partners')
        .set({ pinned_version: version })
        .where('id', '=', principal.partnerId)
        .where(sql<boolean>`pinned_version COLLATE "C" <= ${version}`)
        .returning('pinned_version')
        .executeTakeFirst();
      if (!pinned) {
        throw new ApiError(
          'api_version_downgrade',
          `The partner is pinned to a version newer than ${version}; a pin only moves forward.`,
        );
      }
      ctx.credentials.forgetPartner(principal.partnerId);
      return toApiVersionView(pinned.pinned_version);
    },
  );
}
