import { formatMinorUnits, fiatCurrency } from '@paygate/client/money';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { minimumAmountFor } from '../settlement/feeSchedules.ts';
import { checkLinkTerms, type LinkTerms, type LinkTermsInput, smallestAmountOf } from './paymentLinkTerms.ts';

/**
 * The terms, whole, or 400 with every issue: among them a smallest amount that would not cover the partner's fixed
 * fee, which no payment of the link could then pay.
 */
export async function requireWholeTerms(
  ctx: AppContext,
  partnerId: string,
  input: LinkTermsInput,
  now: Date,
): Promise<LinkTerms> {
  const { terms, issues } = checkLinkTerms(input, now);
  if (!terms) throw ApiError.validation(issues);
  const minimum = await minimumAmountFor(ctx.db, partnerId, terms.currency);
  if (smallestAmountOf(terms) < minimum) {
    const decimals = fiatCurrency(terms.currency)?.decimals ?? 2;
    const field = terms.amount === null ? 'customAmount.minimum' : 'amount.value';
    throw ApiError.validation([
      {
        field,
        message: `must be at least ${minimum} (${formatMinorUnits(minimum, decimals)} ${terms.currency}) to cover the fees`,
      },
    ]);
  }
  return terms;
}

/** The columns of `payment_links` that hold the terms. */
export function termsColumns(terms: LinkTerms) {
  return {
    currency: terms.currency,
    amount: terms.amount,
    minimum_amount: terms.custom?.minimum ?? null,
    maximum_amount: terms.custom?.maximum ?? null,
    preset_amount: terms.custom?.preset ?? null,
    description: terms.description,
    image_url: terms.imageUrl,
    max_quantity: terms.maxQuantity,
    max_uses: terms.maxUses,
    expires_at: terms.expiresAt,
  };
}
