import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { requireWholeTerms, termsColumns } from './linkTermsCheck.ts';
import { PaymentLinkParams, paymentLinkOfPartner } from './paymentLinkOfPartner.ts';
import {
  Description,
  LinkTermsFields,
  PaymentLink,
  type PaymentLinkRow,
  toPaymentLinkView,
  usesOfLinks,
} from './paymentLinkResource.ts';
import type { LinkTermsInput } from './paymentLinkTerms.ts';

const UpdatePaymentLinkBody = Type.Object(
  {
    ...LinkTermsFields,
    description: Type.Optional(Description),
    active: Type.Optional(Type.Boolean({ description: 'false deactivates the link; true takes visits again' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

type UpdateBody = typeof UpdatePaymentLinkBody.static;

/** The link's terms as stored, for an update to change only what it names. */
function storedTerms(link: PaymentLinkRow): LinkTermsInput {
  const unit = `iso4217/${link.currency}`;
  return {
    amount: link.amount === null ? null : { unit, value: link.amount },
    customAmount:
      link.minimum_amount === null || link.maximum_amount === null
        ? null
        : { unit, minimum: link.minimum_amount, maximum: link.maximum_amount, preset: link.preset_amount },
    description: link.description,
    imageUrl: link.image_url,
    quantity: link.max_quantity === null ? null : { maximum: link.max_quantity },
    maxUses: link.max_uses,
    expiresAt: link.expires_at ? Math.floor(link.expires_at.getTime() / 1000) : null,
  };
}

/** The terms after `body`: a price given replaces the other kind; a link keeps its currency. */
function mergedTerms(link: PaymentLinkRow, body: UpdateBody): LinkTermsInput {
  const { active: _active, ...changes } = body;
  const merged: LinkTermsInput = { ...storedTerms(link), ...changes };
  if (body.amount) merged.customAmount = null;
  if (body.customAmount) merged.amount = null;
  // An expiry kept as it was may have passed: it is checked only when the update sets it (`updatedLink` keeps it).
  if (body.expiresAt === undefined) merged.expiresAt = null;
  const unit = body.amount?.unit ?? body.customAmount?.unit;
  if (unit !== undefined && unit !== `iso4217/${link.currency}`) {
    throw ApiError.validation([
      {
        field: body.amount ? 'amount.unit' : 'customAmount.unit',
        message: `must stay iso4217/${link.currency}: a link keeps its currency (create another for another currency)`,
      },
    ]);
  }
  return merged;
}

/** Attempts before a link changed by others meanwhile each time is answered 409. */
const UPDATE_ATTEMPTS = 3;

/**
 * Writes the link's terms merged with `body`, if no other change came between the read and the write: a concurrent
 * update's fields are never lost to this one's merge. No transaction is held while the fees are read.
 */
async function updatedLink(ctx: AppContext, partnerId: string, linkId: string, body: UpdateBody) {
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const now = ctx.clock.now();
    const current = await paymentLinkOfPartner(ctx.db, partnerId, linkId);
    const terms = await requireWholeTerms(ctx, partnerId, mergedTerms(current, body), now);
    const written = await ctx.db
      .updateTable('payment_links')
      .set({
        ...termsColumns(terms),
        // An expiry the update does not name stays, even one passed (the check sees none).
        ...(body.expiresAt === undefined ? { expires_at: current.expires_at } : {}),
        ...(body.active === undefined ? {} : { active: body.active }),
        updated_at: now,
      })
      .where('id', '=', current.id)
      .where('updated_at', '=', current.updated_at)
      .returningAll()
      .executeTakeFirst();
    if (written) return written;
  }
  throw new ApiError('payment_link_changed');
}

export function registerUpdatePaymentLink(app: App, ctx: AppContext): void {
  app.patch(
    '/v1/payment-links/:id',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['payment links'],
        summary: 'Change a payment link',
        description:
          'paygate extension. Only the fields given change; null clears imageUrl, quantity, maxUses or expiresAt. A price given replaces the other kind, in the same currency. Payments made before keep their amounts.',
        params: PaymentLinkParams,
        body: UpdatePaymentLinkBody,
        response: { 200: PaymentLink, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const link = await updatedLink(ctx, partnerId, request.params.id, request.body);
      const now = ctx.clock.now();
      const uses = await usesOfLinks(ctx.db, [link.id], now);
      return toPaymentLinkView(link, uses.get(link.id), { checkoutUrl: ctx.config.checkoutUrl, now });
    },
  );
}
