import { getJson } from '../ui/api.ts';
import type { RevenueAnswer, RevenueDayView } from './apiTypes.ts';
import { loadPaymentList, type PaymentListView } from './paymentsApi.ts';
import { withParameters } from './paymentsQuery.ts';

export interface OverviewData {
  /** The statistics and counts by status of the range's payments, the API's own. */
  totals: PaymentListView;
  /** Succeeded payments and revenue per day, currency, token and network. */
  revenue: RevenueDayView[];
}

/**
 * What the overview shows for a range (`startTs`, `endTs`): the list's statistics (a page of one: only its `stats`
 * are read) and the revenue per day, both from the API for the same filters.
 */
export async function loadOverview(
  query: URLSearchParams,
  listVersion: string | undefined,
  signal: AbortSignal,
): Promise<OverviewData> {
  const [totals, revenue] = await Promise.all([
    loadPaymentList(withParameters(query, { limit: '1' }), listVersion, signal),
    getJson<RevenueAnswer>(`/v1/payments/revenue?${query}`, { signal }),
  ]);
  return { totals, revenue: revenue.body.data };
}
