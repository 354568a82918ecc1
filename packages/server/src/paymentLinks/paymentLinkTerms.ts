import { currencyOfUnit, fiatCurrency } from '@paygate/client/money';
import type { Issue } from '../http/errors.ts';

/** The most a buyer may choose of one fixed-price item. */
export const MAX_QUANTITY = 100;
export const MAX_USES = 1_000_000;
export const MAX_DESCRIPTION_LENGTH = 500;
/** A link may be set to end at most this far ahead. */
const MAX_LINK_LIFETIME_S = 5 * 366 * 24 * 60 * 60;
/** What a payment's amount may hold (minor units), as a create through the API allows. */
const MAX_AMOUNT = 10n ** 18n - 1n;

/** What a link asks for, as a create or an update (merged with the link's terms) gives it. */
export interface LinkTermsInput {
  amount?: { unit: string; value: string } | null;
  customAmount?: { unit: string; minimum: string; maximum: string; preset?: string | null } | null;
  description: string;
  imageUrl?: string | null;
  quantity?: { maximum: number } | null;
  maxUses?: number | null;
  expiresAt?: number | null;
}

/** A link's terms, checked: what `payment_links` stores. */
export interface LinkTerms {
  currency: string;
  /** Fixed price per item, minor units; or the buyer chooses within `custom`. */
  amount: bigint | null;
  custom: { minimum: bigint; maximum: bigint; preset: bigint | null } | null;
  description: string;
  imageUrl: string | null;
  maxQuantity: number | null;
  maxUses: number | null;
  expiresAt: Date | null;
}

const MINOR_UNITS = /^[1-9][0-9]{0,17}$/;
const PRINTABLE = /^[^\p{Cc}\p{Cs}]+$/u;

function minorUnits(value: string | undefined | null, field: string, issues: Issue[]): bigint | null {
  if (value === undefined || value === null) return null;
  if (!MINOR_UNITS.test(value)) {
    issues.push({ field, message: 'must be a positive whole number of minor units (e.g. "1000" for 10.00 USD)' });
    return null;
  }
  return BigInt(value);
}

function currencyOf(unit: string, field: string, issues: Issue[]): string | null {
  const code = currencyOfUnit(unit);
  if (code && fiatCurrency(code)) return code;
  issues.push({ field, message: 'must be iso4217/ followed by a known ISO 4217 currency code' });
  return null;
}

/** An absolute HTTPS URL; the buyer's browser loads it, never the service. */
function imageUrlOf(value: string | null | undefined, issues: Issue[]): string | null {
  if (value === undefined || value === null) return null;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || url.username || url.password) {
    issues.push({ field: 'imageUrl', message: 'must be an absolute HTTPS URL without credentials' });
    return null;
  }
  return url.href;
}

/**
 * Checks a link's terms: one price (fixed, or bounds the buyer chooses within, with an optional suggestion between
 * them), one currency, a description, and optional image, quantity, use limit and end. Every issue is reported at
 * once; none means the terms are whole.
 */
export function checkLinkTerms(input: LinkTermsInput, now: Date): { terms?: LinkTerms; issues: Issue[] } {
  const issues: Issue[] = [];
  const { amount, customAmount } = input;
  if (!amount === !customAmount) {
    issues.push({ field: 'amount', message: 'give either amount (a fixed price) or customAmount (the buyer chooses)' });
  }
  let currency: string | null = null;
  let fixed: bigint | null = null;
  let custom: LinkTerms['custom'] = null;
  if (amount) {
    currency = currencyOf(amount.unit, 'amount.unit', issues);
    fixed = minorUnits(amount.value, 'amount.value', issues);
  } else if (customAmount) {
    currency = currencyOf(customAmount.unit, 'customAmount.unit', issues);
    const minimum = minorUnits(customAmount.minimum, 'customAmount.minimum', issues);
    const maximum = minorUnits(customAmount.maximum, 'customAmount.maximum', issues);
    const preset = minorUnits(customAmount.preset, 'customAmount.preset', issues);
    if (minimum !== null && maximum !== null) {
      if (minimum > maximum) issues.push({ field: 'customAmount.maximum', message: 'must be at least minimum' });
      else if (preset !== null && (preset < minimum || preset > maximum))
        issues.push({ field: 'customAmount.preset', message: 'must be between minimum and maximum' });
      else custom = { minimum, maximum, preset };
    }
  }

  const description = input.description.trim();
  if (!description || !PRINTABLE.test(description) || description.length > MAX_DESCRIPTION_LENGTH) {
    issues.push({
      field: 'description',
      message: `must be 1 to ${MAX_DESCRIPTION_LENGTH} characters of text, without control characters`,
    });
  }
  const imageUrl = imageUrlOf(input.imageUrl, issues);

  let maxQuantity: number | null = null;
  if (input.quantity) {
    if (!amount) issues.push({ field: 'quantity', message: 'is for a fixed price (amount) only' });
    else if (fixed !== null && fixed * BigInt(input.quantity.maximum) > MAX_AMOUNT)
      issues.push({ field: 'quantity.maximum', message: 'makes the most a buyer may pay too large' });
    else maxQuantity = input.quantity.maximum;
  }

  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const nowS = Math.floor(now.getTime() / 1000);
    if (input.expiresAt <= nowS || input.expiresAt > nowS + MAX_LINK_LIFETIME_S) {
      issues.push({ field: 'expiresAt', message: 'must be unix seconds in the future, at most 5 years ahead' });
    } else expiresAt = new Date(input.expiresAt * 1000);
  }

  if (issues.length || currency === null) return { issues };
  return {
    issues,
    terms: {
      currency,
      amount: fixed,
      custom,
      description,
      imageUrl,
      maxQuantity,
      maxUses: input.maxUses ?? null,
      expiresAt,
    },
  };
}

/** The smallest amount the link lets a buyer pay: the fixed price, or the bottom of the buyer's bounds. */
export function smallestAmountOf(terms: Pick<LinkTerms, 'amount' | 'custom'>): bigint {
  return terms.amount ?? terms.custom?.minimum ?? 0n;
}

/**
 * What a visit asks to pay, checked against the link: a fixed price times the quantity chosen (1 when the link lets
 * the buyer choose none), or the buyer's own amount within the bounds. A string is the reason it is refused.
 */
export function visitAmount(
  terms: Pick<LinkTerms, 'amount' | 'custom' | 'maxQuantity'>,
  chosen: { amount?: bigint | null; quantity?: number | null },
): bigint | { refused: 'amount_missing' | 'amount_below' | 'amount_above' | 'quantity_out_of_range' } {
  if (terms.amount !== null) {
    const quantity = chosen.quantity ?? 1;
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > (terms.maxQuantity ?? 1)) {
      return { refused: 'quantity_out_of_range' };
    }
    return terms.amount * BigInt(quantity);
  }
  const bounds = terms.custom!;
  if (chosen.amount === undefined || chosen.amount === null) return { refused: 'amount_missing' };
  if (chosen.amount < bounds.minimum) return { refused: 'amount_below' };
  if (chosen.amount > bounds.maximum) return { refused: 'amount_above' };
  return chosen.amount;
}
