import { ApiError } from '../http/errors.ts';
import { andThen, type Eventually } from '../http/eventually.ts';
import type { CachedMerchant, MerchantCache } from './merchantCache.ts';

/**
 * The partner's merchant, from the process's merchant cache; another partner's merchant is reported exactly like a
 * missing one (D2). Reads that must see the latest or locked row inside a transaction query the database instead.
 */
export function merchantOfPartner(
  merchants: MerchantCache,
  partnerId: string,
  merchantId: string,
): Eventually<CachedMerchant> {
  return andThen(merchants.get(merchantId), (row) => {
    if (!row || row.partner_id !== partnerId) throw ApiError.notFound(`Merchant ${merchantId.slice(0, 64)} not found.`);
    return row;
  });
}
