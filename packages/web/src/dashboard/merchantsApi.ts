import { change, getJson } from '../ui/api.ts';
import type { MerchantDetail, MerchantListAnswer, MerchantView, Session } from './apiTypes.ts';

/** What a merchant's form sends: `iconUrl` a logo to fetch, null to remove it, absent to keep it. */
export interface MerchantFields {
  merchantName?: string;
  merchantEmail?: string;
  iconUrl?: string | null;
}

/** A page of the partner's merchants (`GET /v1/merchants`) for the query (`cursor`, `limit`). */
export async function loadMerchantPage(query: URLSearchParams, signal: AbortSignal): Promise<MerchantListAnswer> {
  return (await getJson<MerchantListAnswer>(`/v1/merchants?${query}`, { signal })).body;
}

/** A merchant with its settlement destinations; 404 for a deleted one or another partner's. */
export async function loadMerchant(merchantId: string, signal: AbortSignal): Promise<MerchantDetail> {
  const path = `/v1/merchants/${encodeURIComponent(merchantId)}`;
  return (await getJson<{ merchant: MerchantDetail }>(path, { signal })).body.merchant;
}

/** Creates a merchant once, however often the request is sent again with the same `Idempotency-Key`. */
export async function createMerchant(session: Session, fields: MerchantFields, key: string) {
  const answer = await change<{ merchant: MerchantView }>('POST', '/v1/merchants', {
    csrfToken: session.csrfToken,
    headers: { 'idempotency-key': key },
    body: fields,
  });
  return answer!.merchant;
}

export async function updateMerchant(session: Session, merchantId: string, fields: MerchantFields) {
  const answer = await change<{ merchant: MerchantView }>('PATCH', `/v1/merchants/${encodeURIComponent(merchantId)}`, {
    csrfToken: session.csrfToken,
    body: fields,
  });
  return answer!.merchant;
}

/** Deletes a merchant (it stays a row: its payments keep their merchant and stay readable). */
export async function deleteMerchant(session: Session, merchantId: string): Promise<void> {
  await change('DELETE', `/v1/merchants/${encodeURIComponent(merchantId)}`, { csrfToken: session.csrfToken });
}
