import type { AppContext } from '../context.ts';
import type { MerchantRow, PaymentRow } from '../payments/paymentResource.ts';
import { createMerchantPayment } from '../payments/createPayment.ts';
import type { RememberedFees } from '../settlement/feeSchedules.ts';
import { linkStatusOf, type PaymentLinkRow, type PaymentLinkStatus, usesOfLinks } from './paymentLinkResource.ts';
import { visitAmount } from './paymentLinkTerms.ts';

/** Why a visit made no payment, for the page to say. */
export type VisitRefusal =
  | Exclude<PaymentLinkStatus, 'active'>
  /** The open payments of others hold every use left; one may end unpaid. */
  | 'all_taken'
  | 'merchant_not_active'
  /** The same page was submitted before with another amount. */
  | 'page_used'
  | Exclude<ReturnType<typeof visitAmount>, bigint>['refused'];

export type VisitResult = { payment: PaymentRow } | { refused: VisitRefusal; payment?: undefined };

/**
 * Makes the payment of one visit: the amount the link asks (or the buyer chose within it), for the link's merchant,
 * named by the link. `visit` names the page the buyer submitted: the same page submitted again gets the same
 * payment, never a second one. A link with a use limit is locked for the visit, so that as many visits at once as
 * there are uses left make payments and the others are refused, exactly.
 */
export async function paymentOfVisit(
  ctx: AppContext,
  fees: RememberedFees,
  link: PaymentLinkRow,
  merchant: MerchantRow,
  visit: { token: string; amount: bigint | null; quantity: number | null },
): Promise<VisitResult> {
  if (merchant.status !== 'active' || merchant.deleted_at !== null) return { refused: 'merchant_not_active' };
  const result = await visitUnderLock(ctx, fees, link, merchant, visit, link.max_uses !== null);
  // A limit set since the link was read: the visit counts its uses under the exclusive lock.
  return result === 'limit_set'
    ? (visitUnderLock(ctx, fees, link, merchant, visit, true) as Promise<VisitResult>)
    : result;
}

async function visitUnderLock(
  ctx: AppContext,
  fees: RememberedFees,
  link: PaymentLinkRow,
  merchant: MerchantRow,
  visit: { token: string; amount: bigint | null; quantity: number | null },
  limited: boolean,
): Promise<VisitResult | 'limit_set'> {
  const referenceId = `${link.id}/${visit.token}`;
  return ctx.db.transaction().execute(async (trx): Promise<VisitResult | 'limit_set'> => {
    const now = ctx.clock.now();
    // Visits of an unlimited link share the lock; an update that sets a limit waits for them, and they for it.
    const current = await trx
      .selectFrom('payment_links')
      .selectAll()
      .where('id', '=', link.id)
      .$call((query) => (limited ? query.forUpdate() : query.forShare()))
      .executeTakeFirstOrThrow();
    if (current.max_uses !== null && !limited) return 'limit_set';
    const amount = visitAmount(termsOfRow(current), visit);
    if (typeof amount !== 'bigint') return { refused: amount.refused };
    // After the lock: a page submitted twice at once finds the payment its first submission made.
    const before = await trx
      .selectFrom('payments')
      .selectAll()
      .where('merchant_id', '=', merchant.id)
      .where('reference_id', '=', referenceId)
      .executeTakeFirst();
    if (before) return BigInt(before.fiat_value) === amount ? { payment: before } : { refused: 'page_used' };
    const uses = limited ? (await usesOfLinks(trx, [current.id], now)).get(current.id) : undefined;
    const status = linkStatusOf(current, uses?.succeeded ?? 0, now);
    if (status !== 'active') return { refused: status };
    if (current.max_uses !== null && (uses?.held ?? 0) >= current.max_uses) return { refused: 'all_taken' };
    const { payment } = await createMerchantPayment(
      ctx,
      trx,
      merchant,
      {
        amount: { currency: current.currency, value: amount },
        referenceId,
        origin: 'payment_link',
        paymentLinkId: current.id,
      },
      fees,
    );
    return { payment };
  });
}

/** The pricing of a stored link, as `visitAmount` reads it. */
function termsOfRow(link: PaymentLinkRow) {
  return {
    amount: link.amount === null ? null : BigInt(link.amount),
    custom:
      link.minimum_amount === null || link.maximum_amount === null
        ? null
        : { minimum: BigInt(link.minimum_amount), maximum: BigInt(link.maximum_amount), preset: null },
    maxQuantity: link.max_quantity,
  };
}
