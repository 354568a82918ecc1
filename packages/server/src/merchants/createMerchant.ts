import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { DisplayName, displayNameToStore } from '../http/displayName.ts';
import { requireIdempotencyKey, runIdempotently } from '../http/idempotency.ts';
import { errorResponses, IdempotencyKeyHeader, Nullable } from '../http/schemas.ts';
import { newId } from '../ids.ts';
import { fetchMerchantLogo, storeLogo } from './merchantLogo.ts';
import { IconUrl, MerchantEmail, MerchantEnvelope, toMerchant } from './merchantResource.ts';
import { sendStoredResponse } from '../http/storedResponse.ts';

const CreateMerchantBody = Type.Object(
  {
    merchantName: DisplayName,
    merchantEmail: MerchantEmail,
    iconUrl: Type.Optional(Nullable(IconUrl)),
  },
  { additionalProperties: false },
);

export function registerCreateMerchant(app: App, ctx: AppContext): void {
  app.post(
    '/v1/merchants',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['merchants'],
        summary: 'Create a merchant',
        description:
          'Requires a fresh Idempotency-Key; a replay with the same key and body returns the original result. The name is stored without surrounding white space; iconUrl null is the same as no iconUrl.',
        headers: IdempotencyKeyHeader,
        body: CreateMerchantBody,
        response: { 201: MerchantEnvelope, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const { partnerId } = principalOf(request);
      const key = requireIdempotencyKey(request.headers['idempotency-key']);
      const { merchantEmail, iconUrl } = request.body;
      const merchantName = displayNameToStore(request.body.merchantName, 'merchantName');
      // Fetched before the idempotency transaction, so a slow logo host never holds a pooled connection.
      // Any string is a URL to fetch (an empty one is refused there as not a URL).
      const logo = typeof iconUrl === 'string' ? await fetchMerchantLogo(ctx, iconUrl) : undefined;
      const response = await runIdempotently(
        ctx.db,
        // A null iconUrl is the same request as one without it.
        {
          partnerId,
          scope: 'POST /v1/merchants',
          key,
          fingerprint: { ...request.body, iconUrl: iconUrl ?? undefined },
        },
        async (trx) => {
          const logoFile = logo ? await storeLogo(trx, logo) : null;
          const row = await trx
            .insertInto('merchants')
            .values({
              id: newId('mrch'),
              partner_id: partnerId,
              name: merchantName,
              email: merchantEmail,
              logo_file: logoFile,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          return { status: 201, body: JSON.stringify({ merchant: toMerchant(row, ctx.config.baseUrl) }) };
        },
      );
      return sendStoredResponse(reply, response);
    },
  );
}
