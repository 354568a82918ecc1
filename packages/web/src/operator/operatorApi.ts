import { change, getJson, readSessionAt } from '../ui/api.ts';

// The console API's answers (`/operator/api/`), as its routes describe them.
export interface OperatorSession {
  csrfToken: string;
  expiresAt: string;
}

export interface FeeSchedule {
  /** Decimal text, `1.5` for 1.5 percent. */
  percentage: string;
  /** Minor units of each currency. */
  fixed: { currency: string; amount: string }[];
}

export interface PartnerSummary {
  partnerId: string;
  name: string;
  pinnedVersion: string;
  createdAt: string;
  merchants: number;
  activeKeys: number;
  fees: FeeSchedule;
  /** Buyers are asked for their details above it: `USD:100000`, `100000` (the payment's currency) or `none`. */
  dataThreshold: string;
}

export interface CreatedPartner {
  partnerId: string;
  apiKey: string;
  appId: string;
}

export const MERCHANT_STATUSES = ['active', 'inactive', 'suspended'] as const;
export type MerchantStatus = (typeof MERCHANT_STATUSES)[number];

export interface MerchantSummary {
  merchantId: string;
  partnerId: string;
  partnerName: string;
  name: string;
  email: string;
  status: MerchantStatus;
  deleted: boolean;
  createdAt: string;
}

export interface MerchantPage {
  data: MerchantSummary[];
  nextCursor: string | null;
}

const API = '/operator/api';

export function readOperatorSession(): Promise<OperatorSession | undefined> {
  return readSessionAt<OperatorSession>(`${API}/session`);
}

export async function signOutOperator(session: OperatorSession): Promise<void> {
  await change('DELETE', `${API}/session`, { csrfToken: session.csrfToken });
}

export async function listPartners(signal: AbortSignal): Promise<PartnerSummary[]> {
  return (await getJson<{ data: PartnerSummary[] }>(`${API}/partners`, { signal })).body.data;
}

export async function createPartner(session: OperatorSession, name: string): Promise<CreatedPartner> {
  return (await change<CreatedPartner>('POST', `${API}/partners`, { csrfToken: session.csrfToken, body: { name } }))!;
}

export async function setPartnerFees(session: OperatorSession, partnerId: string, fees: FeeSchedule): Promise<void> {
  await change('PUT', `${API}/partners/${encodeURIComponent(partnerId)}/fees`, {
    csrfToken: session.csrfToken,
    body: fees,
  });
}

export async function pinPartnerVersion(session: OperatorSession, partnerId: string, version: string): Promise<void> {
  await change('PUT', `${API}/partners/${encodeURIComponent(partnerId)}/version`, {
    csrfToken: session.csrfToken,
    body: { version },
  });
}

/** Stores the threshold as typed, in the forms of `paygate partner set-data-threshold`; the stored form comes back. */
export async function setPartnerDataThreshold(
  session: OperatorSession,
  partnerId: string,
  threshold: string,
): Promise<string> {
  const stored = await change<{ dataThreshold: string }>(
    'PUT',
    `${API}/partners/${encodeURIComponent(partnerId)}/data-threshold`,
    { csrfToken: session.csrfToken, body: { threshold } },
  );
  return stored!.dataThreshold;
}

/** A page of the merchants of every partner for the query (`partnerId`, `status`, `cursor`, `limit`). */
export async function listMerchants(query: URLSearchParams, signal: AbortSignal): Promise<MerchantPage> {
  return (await getJson<MerchantPage>(`${API}/merchants?${query}`, { signal })).body;
}

export async function setMerchantStatus(
  session: OperatorSession,
  merchantId: string,
  status: MerchantStatus,
): Promise<void> {
  await change('PUT', `${API}/merchants/${encodeURIComponent(merchantId)}/status`, {
    csrfToken: session.csrfToken,
    body: { status },
  });
}

/** A token by its CAIP-19 id; symbol and decimals when the configured networks list it. */
export interface HealthToken {
  asset: string;
  symbol: string | null;
  decimals: number | null;
}

export type NodeStatus = 'reachable' | 'unreachable' | 'no_node';

export interface NetworkHealth {
  network: string;
  name: string;
  unit: 'block' | 'slot';
  confirmations: number;
  node: { status: NodeStatus; latest: string | null; problem: string | null };
  follower: { followed: boolean; readUpTo: string | null; lag: string | null; movedAt: string | null };
  collector: {
    status: NodeStatus;
    problem: string | null;
    balances: (HealthToken & { chain: string; ledger: string; difference: string; readAt: string })[];
  };
}

export interface ServiceHealth {
  checkedAt: string;
  networks: NetworkHealth[];
  jobs: {
    task: string;
    due: number;
    scheduled: number;
    running: number;
    givenUp: number;
    oldestDueAt: string | null;
  }[];
  webhooks: { pending: number; retrying: number; oldestPendingSince: string | null };
  settlements: {
    unconfirmed: (HealthToken & {
      status: 'claimed' | 'sent';
      batches: number;
      amount: string;
      oldestCreatedAt: string;
    })[];
    shortfalls: (HealthToken & { needed: string; held: string })[];
  };
}

export async function readServiceHealth(signal: AbortSignal): Promise<ServiceHealth> {
  return (await getJson<ServiceHealth>(`${API}/health`, { signal })).body;
}
