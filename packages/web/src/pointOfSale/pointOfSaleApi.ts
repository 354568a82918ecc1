/** The point of sale's calls to the service, with the device's key; its key lives in this browser's storage only. */

const KEY_STORAGE = 'paygate.pos.deviceKey';

export interface Amount {
  unit: string;
  value: string;
}

export interface Device {
  deviceId: string;
  name: string;
  currency: string;
  tipPercents: number[];
  merchant: { id: string; name: string; iconUrl: string | null };
}

export type ChargeStatus = 'requires_action' | 'processing' | 'succeeded' | 'failed' | 'expired' | 'cancelled';

export interface Charge {
  paymentId: string;
  status: ChargeStatus;
  isFinal: boolean;
  failureCode?: string;
  amount: Amount;
  baseAmount: Amount;
  tip: Amount;
  note: string | null;
  paymentUrl: string;
  receiptUrl: string;
  transaction?: { networkId: string; hash: string };
  createdAt: string;
  expiresAt: string;
}

export interface DayTotals {
  unit: string;
  succeededCount: number;
  succeededAmount: string;
  succeededTips: string;
  openCount: number;
}

/** A refusal of the service, with its error code. */
export class PosFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function storedDeviceKey(): string | null {
  return localStorage.getItem(KEY_STORAGE);
}

export function forgetDeviceKey(): void {
  localStorage.removeItem(KEY_STORAGE);
}

let deviceRevoked: () => void = () => {};

/** What to do when the service no longer knows the device's key (revoked from the dashboard). */
export function onDeviceRevoked(listener: () => void): void {
  deviceRevoked = listener;
}

async function request<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}) {
  const key = storedDeviceKey();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers['device-key'] = key;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers,
    // The device's key is its only credential: a dashboard cookie of this origin must not ride along.
    credentials: 'omit',
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const body = (await response.json().catch(() => undefined)) as { code?: string; message?: string } | undefined;
  if (!response.ok) {
    if (response.status === 401 && key) {
      forgetDeviceKey();
      deviceRevoked();
    }
    throw new PosFailure(
      response.status,
      body?.code ?? 'unknown',
      body?.message ?? `The service answered ${response.status}.`,
    );
  }
  return body as T;
}

/** Claims a pairing link's token: the device's key is kept in this browser, and the device's settings answered. */
export async function claimPairing(pairingToken: string): Promise<Device> {
  const claimed = await request<{ deviceKey: string; device: Device }>('/v1/point-of-sale/pairing', {
    method: 'POST',
    body: { pairingToken },
  });
  localStorage.setItem(KEY_STORAGE, claimed.deviceKey);
  return claimed.device;
}

export const readDevice = () => request<Device>('/v1/point-of-sale/device');

export function createCharge(body: { chargeId: string; amount: string; tipPercent?: number; note?: string }) {
  return request<Charge>('/v1/point-of-sale/charges', { method: 'POST', body });
}

/** The charge once its status differs from `since`, or after the service's long-poll ends. */
export function followCharge(paymentId: string, since: ChargeStatus, signal: AbortSignal) {
  return request<Charge>(`/v1/point-of-sale/charges/${encodeURIComponent(paymentId)}?maxPollMs=25000&since=${since}`, {
    signal,
  });
}

export function cancelCharge(paymentId: string) {
  return request<Charge>(`/v1/point-of-sale/charges/${encodeURIComponent(paymentId)}/cancel`, { method: 'POST' });
}

/** The charges since this device's local midnight. */
export function chargesOfToday() {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  return request<{ data: Charge[]; totals: DayTotals }>(
    `/v1/point-of-sale/charges?from=${encodeURIComponent(midnight.toISOString())}`,
  );
}
