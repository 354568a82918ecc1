/**
 * The payment list's page URL holds the API's own query parameters (`GET /v1/payments`), so a reload or a shared
 * link shows the same list, and what the dashboard asks the API is what its address says.
 */
export const LIST_PARAMETERS = [
  'status',
  'merchantId',
  'search',
  'referenceId',
  'startTs',
  'endTs',
  'token_symbol',
  'network',
  'source',
  'paymentLinkId',
  'sortBy',
  'sortDir',
  'limit',
  'cursor',
] as const;

/** Where payments come from: the API (checkout), the x402 facilitator for agents, a payment link, a point of sale. */
export const SOURCE_LABELS: Record<string, string> = {
  api: 'API (checkout)',
  x402: 'x402 (agents)',
  payment_link: 'Payment link',
  point_of_sale: 'Point of sale',
};

/** The statuses every API version filters by; `cancelled` only some (`cancelledStatusVersions`, `listVersionOf`). */
export const LIST_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'expired'] as const;

/** The API query of a page's query: its list parameters, in a fixed order, without empty values. */
export function listQueryOf(pageQuery: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of LIST_PARAMETERS) {
    for (const value of pageQuery.getAll(name)) if (value.trim()) query.append(name, value.trim());
  }
  return query;
}

/** The query with `changes` made (a value of `undefined` or `[]` removes the parameter). */
export function withParameters(
  query: URLSearchParams,
  changes: Partial<Record<(typeof LIST_PARAMETERS)[number], string | string[] | undefined>>,
): URLSearchParams {
  const changed = new URLSearchParams(query);
  for (const [name, value] of Object.entries(changes)) {
    changed.delete(name);
    for (const each of typeof value === 'string' ? [value] : (value ?? [])) if (each) changed.append(name, each);
  }
  return changed;
}

/** The query of `GET /v1/payments/status-counts` for a list's: its filters other than status, without paging or order. */
export function statusCountsQuery(query: URLSearchParams): URLSearchParams {
  return withParameters(query, {
    status: undefined,
    cursor: undefined,
    sortBy: undefined,
    sortDir: undefined,
    limit: undefined,
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A UTC day `YYYY-MM-DD` of a date input as the API's inclusive `startTs`. */
export function startOfDay(day: string): string {
  return `${day}T00:00:00.000Z`;
}

/** A UTC day `YYYY-MM-DD` of a date input, inclusive, as the API's exclusive `endTs`: the next day's start. */
export function endOfDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS).toISOString();
}

/** The UTC day a `startTs` falls on, for a date input; empty when it is not a time. */
export function dayOfStart(startTs: string | null): string {
  const at = Date.parse(startTs ?? '');
  return Number.isNaN(at) ? '' : new Date(at).toISOString().slice(0, 10);
}

/** The last UTC day an exclusive `endTs` covers, for a date input; empty when it is not a time. */
export function dayOfEnd(endTs: string | null): string {
  const at = Date.parse(endTs ?? '');
  return Number.isNaN(at) ? '' : new Date(at - 1).toISOString().slice(0, 10);
}
