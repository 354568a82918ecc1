import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { newId } from '../ids.ts';
import { isPublicAddress } from '../net/addressPolicy.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import { deliveryOptions } from './deliveryOptions.ts';
import { EventTypeSchema, toWebhookEndpoint, WebhookEndpoint } from './endpointResource.ts';
import { requireEventTypesReadable } from './eventScopes.ts';

/** Endpoints per account: each event fans out to every one, so the count bounds the work one change can cause. */
export const MAX_ENDPOINTS_PER_PARTNER = 20;

const CreateWebhookEndpointBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'Public HTTPS URL' }),
    events: Type.Array(EventTypeSchema, { minItems: 1, maxItems: 8, uniqueItems: true }),
    merchantId: Type.Optional(Type.String({ maxLength: 64, description: "Only this merchant's events" })),
  },
  { additionalProperties: false },
);

const CreatedWebhookEndpoint = Type.Object({
  webhook: Type.Object({
    ...WebhookEndpoint.properties,
    secret: Type.String({ description: 'Signing secret (`whsec_...`). Shown only in this response: store it now.' }),
  }),
});

/**
 * The URL rules that can be checked without connecting: HTTPS, no credentials, and not a literal private address.
 * A host name is resolved and checked at every delivery, because its records may change.
 */
function urlProblem(raw: string, allowPrivateHosts: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute HTTPS URL';
  }
  if (url.protocol !== 'https:') return 'must be an HTTPS URL';
  if (url.username || url.password) return 'must not contain a user name or password';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (allowPrivateHosts) return undefined;
  if (isIP(host) !== 0 ? !isPublicAddress(host) : host === 'localhost' || host.endsWith('.localhost')) {
    return 'must point to a public address';
  }
  return undefined;
}

function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function registerCreateWebhookEndpoint(app: App, ctx: AppContext): void {
  const { allowPrivateHosts } = deliveryOptions(ctx.webhookDelivery);
  app.post(
    '/v1/webhooks',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook endpoint',
        description:
          "Events are POSTed to the URL, signed with the returned secret in `Pay-Signature`. The secret is shown only once. Only event types the key's scopes read can be subscribed (payment and refund events need `payments`; 403 forbidden otherwise).",
        body: CreateWebhookEndpointBody,
        response: { 201: CreatedWebhookEndpoint, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { partnerId } = principal;
      const { url, events, merchantId } = request.body;
      requireEventTypesReadable(principal, events);
      const problem = urlProblem(url, allowPrivateHosts);
      if (problem) throw ApiError.validation([{ field: 'url', message: problem }]);
      if (merchantId !== undefined) await merchantOfPartner(ctx.merchants, partnerId, merchantId);
      const row = await ctx.db.transaction().execute(async (trx) => {
        // Serialises concurrent creations for the account, so the limit holds.
        await trx.selectFrom('partners').select('id').where('id', '=', partnerId).forUpdate().execute();
        const { count } = await trx
          .selectFrom('webhook_endpoints')
          .select((eb) => eb.fn.countAll<string>().as('count'))
          .where('partner_id', '=', partnerId)
          .where('deleted_at', 'is', null)
          .executeTakeFirstOrThrow();
        if (Number(count) >= MAX_ENDPOINTS_PER_PARTNER) {
          throw new ApiError(
            'webhook_endpoint_limit',
            `An account may have at most ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints; delete one first.`,
          );
        }
        return trx
          .insertInto('webhook_endpoints')
          .values({
            id: newId('whk'),
            partner_id: partnerId,
            merchant_id: merchantId ?? null,
            url,
            events,
            secret: newSigningSecret(),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      });
      return reply.status(201).send({ webhook: { ...toWebhookEndpoint(row), secret: row.secret } });
    },
  );
}
