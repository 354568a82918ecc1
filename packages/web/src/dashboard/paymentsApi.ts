import { ApiFailure, getJson } from '../ui/api.ts';
import type { MerchantListAnswer, MerchantView, PaymentDetailAnswer, PaymentListAnswer } from './apiTypes.ts';
import { LIST_STATUSES, statusCountsQuery } from './paymentsQuery.ts';
import type { DashboardSettings } from './settings.ts';

/**
 * The API version the dashboard reads the payment list under: the newest whose list filters and counts cancelled
 * payments, so it shows them apart whichever version the partner pinned (the list differs in nothing else the
 * dashboard asks). Undefined if no version does.
 */
export function listVersionOf(settings: DashboardSettings): string | undefined {
  return settings.cancelledStatusVersions.at(-1);
}

export interface PaymentListView {
  list: PaymentListAnswer;
  /** Payments per status under the other filters, each the API's own count. */
  statusCounts: { status: string; count: number }[];
}

/**
 * A page of the partner's payments and the counts by status, from the API under `version`, for the list's query.
 * The API counts a cancelled payment within `failed` too; here each payment is counted once, under the status it
 * is shown in.
 */
export async function loadPaymentList(
  query: URLSearchParams,
  version: string | undefined,
  signal: AbortSignal,
): Promise<PaymentListView> {
  const headers: Record<string, string> = version ? { 'pay-version': version } : {};
  const [page, counts] = await Promise.all([
    getJson<PaymentListAnswer>(`/v1/payments?${query}`, { headers, signal }),
    getJson<{ data: { status: string; payments: number }[] }>(
      `/v1/payments/status-counts?${statusCountsQuery(query)}`,
      { headers, signal },
    ),
  ]);
  const counted = new Map(counts.body.data.map((entry) => [entry.status, entry.payments]));
  const cancelled = counted.get('cancelled');
  const statuses: string[] = [...LIST_STATUSES, ...(cancelled === undefined ? [] : ['cancelled'])];
  return {
    list: page.body,
    statusCounts: statuses.map((status) => ({
      status,
      count: (counted.get(status) ?? 0) - (status === 'failed' ? (cancelled ?? 0) : 0),
    })),
  };
}

/** Pages of merchants the merchant filter offers at most; more than that and it takes a merchant id. */
const MERCHANT_PAGES = 5;

/**
 * The partner's merchants for the merchant filter, or undefined when the session may not list them (its key lacks
 * the `merchants` scope) or there are too many to offer in a list.
 */
export async function loadMerchants(signal: AbortSignal): Promise<MerchantView[] | undefined> {
  const merchants: MerchantView[] = [];
  let cursor: string | null = null;
  try {
    for (let page = 0; page < MERCHANT_PAGES; page++) {
      const query = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
      const answer: MerchantListAnswer = (await getJson<MerchantListAnswer>(`/v1/merchants?${query}`, { signal })).body;
      merchants.push(...answer.data);
      cursor = answer.nextCursor;
      if (!cursor) return merchants.sort((a, b) => a.name.localeCompare(b.name));
    }
    return undefined;
  } catch (error) {
    if (error instanceof ApiFailure && error.code === 'forbidden') return undefined;
    throw error;
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiFailure && error.status === 404;
}

/** Merchants asked at once for a payment known by its id alone. */
const LOOKUPS_AT_ONCE = 10;

function getPayment(id: string, merchantId: string, signal: AbortSignal) {
  const path = `/v1/payments/${encodeURIComponent(id)}`;
  return getJson<PaymentDetailAnswer>(path, { headers: { 'merchant-id': merchantId }, signal }).then(
    ({ body }) => body,
  );
}

/**
 * A payment of the partner by its id. The API reads a payment through its merchant (`Merchant-Id`): the list's links
 * name it; a bare id is looked for among the partner's listed merchants. Not found (404) otherwise, another
 * partner's payment included.
 */
export async function loadPayment(
  id: string,
  merchantId: string | undefined,
  signal: AbortSignal,
): Promise<PaymentDetailAnswer> {
  if (merchantId) return getPayment(id, merchantId, signal);
  const merchants = (await loadMerchants(signal)) ?? [];
  for (let start = 0; start < merchants.length; start += LOOKUPS_AT_ONCE) {
    const found = await Promise.all(
      merchants.slice(start, start + LOOKUPS_AT_ONCE).map((merchant) =>
        getPayment(id, merchant.id, signal).catch((error: unknown) => {
          if (isNotFound(error)) return undefined;
          throw error;
        }),
      ),
    );
    const payment = found.find((each) => each !== undefined);
    if (payment) return payment;
  }
  throw new ApiFailure(404, 'payment_not_found', 'Payment not found.');
}

/** The longest the API holds a status request; it answers at once when the status changes. */
const LONG_POLL_MS = 25_000;

/** Resolves when the payment's status changes, or after the API's longest wait. */
export async function statusChange(payment: PaymentDetailAnswer, signal: AbortSignal): Promise<void> {
  const query = new URLSearchParams({ maxPollMs: String(LONG_POLL_MS) });
  await getJson(`/v1/payments/${encodeURIComponent(payment.paymentId)}/status?${query}`, {
    headers: { 'merchant-id': payment.merchant.id },
    signal,
  });
}
