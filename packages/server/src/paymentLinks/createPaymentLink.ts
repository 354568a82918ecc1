import { Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { App, AppContext } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { runIdempotently, type StoredResponse } from '../http/idempotency.ts';
import { errorResponses } from '../http/schemas.ts';
import { sendStoredResponse } from '../http/storedResponse.ts';
import { newId } from '../ids.ts';
import { liveMerchantOfRequest, MerchantIdHeader, requireMerchantIdHeader } from '../payments/merchantHeader.ts';
import { Description, LinkTermsFields, PaymentLink, toPaymentLinkView } from './paymentLinkResource.ts';
import { requireWholeTerms, termsColumns } from './linkTermsCheck.ts';

const CreatePaymentLinkBody = Type.Object(
  {
    ...LinkTermsFields,
    description: Description,
    active: Type.Optional(Type.Boolean({ default: true, description: 'false: made deactivated' })),
  },
  { additionalProperties: false },
);

export function registerCreatePaymentLink(app: App, ctx: AppContext): void {
  app.post(
    '/v1/payment-links',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payment links'],
        summary: 'Create a payment link',
        description:
          'paygate extension: a public page of the merchant that makes a new payment per visit, at a fixed price (amount, times a quantity the buyer may choose) or at a price the buyer chooses within customAmount. The smallest amount it allows must cover the partner fees, as a payment must. An Idempotency-Key header is honoured.',
        headers: Type.Intersect([
          MerchantIdHeader,
          Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
        ]),
        body: CreatePaymentLinkBody,
        response: { 201: PaymentLink, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const merchant = await liveMerchantOfRequest(ctx, request);
      if (merchant.status !== 'active')
        throw new ApiError('forbidden', `Merchant ${merchant.id} is ${merchant.status} and cannot take payments.`);
      const now = ctx.clock.now();
      const terms = await requireWholeTerms(ctx, merchant.partner_id, request.body, now);
      const create = async (trx: Transaction<Database>): Promise<StoredResponse> => {
        const link = await trx
          .insertInto('payment_links')
          .values({
            id: newId('plink'),
            partner_id: merchant.partner_id,
            merchant_id: merchant.id,
            ...termsColumns(terms),
            active: request.body.active ?? true,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const view = toPaymentLinkView(link, undefined, { checkoutUrl: ctx.config.checkoutUrl, now });
        return { status: 201, body: JSON.stringify(view) };
      };
      const header = request.headers['idempotency-key'];
      const key = Array.isArray(header) ? header[0] : header;
      const response = key
        ? await runIdempotently(
            ctx.db,
            {
              partnerId: principalOf(request).partnerId,
              scope: `POST /v1/payment-links ${merchant.id}`,
              key,
              fingerprint: request.body,
            },
            create,
          )
        : await ctx.db.transaction().execute(create);
      return sendStoredResponse(reply, response);
    },
  );
}
