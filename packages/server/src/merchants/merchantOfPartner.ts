import { ApiError } from '../http/errors.ts';
import { andThen, type Eventually } from '../http/eventually.ts';
import type { CachedMerchant, MerchantCache } from './merchantCache.ts';

export interface MerchantLookupOptions {
  /** Also a merchant its partner deleted, for reading what it already has (its payments and their history). */
  includeDeleted?: boolean;
}

/**
 * The partner's merchant, from the process's merchant cache; another partner's merchant is reported exactly like a
 * missing one (D2, 404 `merchant_not_found`, the code WalletConnect Pay gives it), and so is a deleted one unless
 * asked for. Reads that must see the latest or locked row inside a
 * transaction query the database instead.
 */
export function merchantOfPartner(
  merchants: MerchantCache,
  partnerId: string,
  merchantId: string,
  options?: MerchantLookupOptions,
): Eventually<CachedMerchant> {
  return andThen(merchants.get(merchantId), (row) => {
    if (!row || row.partner_id !== partnerId || (row.deleted_at !== null && !options?.includeDeleted)) {
      throw ApiError.notFound(`Merchant ${merchantId.slice(0, 64)} not found.`, 'merchant_not_found');
    }
    return row;
  });
}
