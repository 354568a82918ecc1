import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { isKnownVersion } from '../http/versions.ts';
import { pinPartnerVersion } from '../partners/partners.ts';
import { PartnerIdParams, requirePartner } from './partnerView.ts';

const VersionBody = Type.Object(
  { version: Type.String({ minLength: 1, maxLength: 32, description: 'A known API version' }) },
  { additionalProperties: false },
);

/** Sets the API version a partner's requests run under by default, as `paygate partner pin-version` does. */
export function registerPinPartnerVersion(app: App, ctx: AppContext): void {
  app.put(
    '/operator/api/partners/:partnerId/version',
    {
      schema: {
        tags: ['operator'],
        summary: "Pin a partner's API version",
        params: PartnerIdParams,
        body: VersionBody,
        response: {
          200: Type.Object({ partnerId: Type.String(), pinnedVersion: Type.String() }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const { partnerId } = request.params;
      const { version } = request.body;
      if (!isKnownVersion(version)) {
        throw ApiError.validation([{ field: 'version', message: `${version} is not a known API version` }]);
      }
      await requirePartner(ctx.db, partnerId);
      await pinPartnerVersion(ctx.db, partnerId, version);
      ctx.credentials.forgetPartner(partnerId);
      return { partnerId, pinnedVersion: version };
    },
  );
}
