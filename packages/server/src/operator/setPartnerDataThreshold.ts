import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { DataThresholdError } from '../gateway/dataCollection/threshold.ts';
import {
  formatPartnerDataThreshold,
  parsePartnerDataThreshold,
  setPartnerDataThreshold,
} from '../gateway/dataCollection/thresholdSettings.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { PartnerIdParams, requirePartner } from './partnerView.ts';

const THRESHOLD_FORMS =
  '`USD:100000` (minor units of USD; other currencies converted), `100000` (minor units of each payment’s own ' +
  'currency) or `none` (never ask)';

const ThresholdBody = Type.Object(
  { threshold: Type.String({ minLength: 1, maxLength: 64, description: THRESHOLD_FORMS }) },
  { additionalProperties: false },
);

/**
 * Sets above what amount the buyers of a partner's payments are asked for their details (D14), as `paygate partner
 * set-data-threshold` does: the same forms, read and stored by the same functions. Merchants that inherit it follow.
 */
export function registerSetPartnerDataThreshold(app: App, ctx: AppContext): void {
  app.put(
    '/operator/api/partners/:partnerId/data-threshold',
    {
      schema: {
        tags: ['operator'],
        summary: "Set a partner's buyer-data threshold",
        params: PartnerIdParams,
        body: ThresholdBody,
        response: {
          200: Type.Object({
            partnerId: Type.String(),
            dataThreshold: Type.String({ description: `As stored, in the form it was given: ${THRESHOLD_FORMS}` }),
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const { partnerId } = request.params;
      let threshold: ReturnType<typeof parsePartnerDataThreshold>;
      try {
        threshold = parsePartnerDataThreshold(request.body.threshold);
      } catch (error) {
        if (error instanceof DataThresholdError)
          throw ApiError.validation([{ field: 'threshold', message: error.message }]);
        throw error;
      }
      await requirePartner(ctx.db, partnerId);
      await setPartnerDataThreshold(ctx.db, partnerId, threshold);
      return { partnerId, dataThreshold: formatPartnerDataThreshold(threshold) };
    },
  );
}
