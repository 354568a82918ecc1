import { ApiError } from '../http/errors.ts';
import { andThen, type Eventually } from '../http/eventually.ts';
import type { CachedMerchant, MerchantCache } from './merchantCache.ts';

export interface MerchantLookupOptions {
  /** Also a merchant its partner deleted, for reading what it already has (its payments and their history). */
  includeDeleted?: boolean;
  /**
   * The merchant is the resource the path names (`/v1/merchants/{merchantId}` and its settlements): a missing one is
   * the resource's 404 `not_found` (D5, D7, and WalletConnect Pay's documents of those routes), not the
   * `merchant_not_found` of a route that takes the merchant as a parameter.
   */
  asResource?: boolean;
}

/**
 * The partner's merchant, from the process's merchant cache; another partner's merchant is reported exactly like a
 * missing one (D2, 404 `merchant_not_found`, the code WalletConnect Pay gives it, or `not_found` where the merchant
 * is the path's resource), and so is a deleted one unless asked for. Reads that must see the latest or locked row
 * inside a transaction query the database instead.
 */
export function merchantOfPartner(
  merchants: MerchantCache,
  partnerId: string,
  merchantId: string,
  options?: MerchantLookupOptions,
): Eventually<CachedMerchant> {
  return andThen(merchants.get(merchantId), (row) => {
    if (!row || row.partner_id !== partnerId || (row.deleted_at !== null && !options?.includeDeleted)) {
      throw merchantMissing(merchantId, options);
    }
    return row;
  });
}

/** The 404 of a merchant that is missing, another partner's, or deleted. */
export function merchantMissing(merchantId: string, options?: Pick<MerchantLookupOptions, 'asResource'>): ApiError {
  return ApiError.notFound(
    `Merchant ${merchantId.slice(0, 64)} not found.`,
    options?.asResource ? 'not_found' : 'merchant_not_found',
  );
}
