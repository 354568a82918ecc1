import { change, getJson } from '../ui/api.ts';
import type { Answer, Session } from './apiTypes.ts';

export type DeviceEntry = Answer<'/v1/point-of-sale/devices'>['data'][number];

/** A new device and its one-time pairing link (shown this once). */
export interface PairedDevice {
  device: DeviceEntry;
  pairingUrl: string;
}

/** The merchant's point-of-sale devices, newest first, revoked ones included. */
export async function loadDevices(merchantId: string, signal: AbortSignal): Promise<DeviceEntry[]> {
  const query = new URLSearchParams({ merchantId });
  return (await getJson<{ data: DeviceEntry[] }>(`/v1/point-of-sale/devices?${query}`, { signal })).body.data;
}

export async function pairDevice(
  session: Session,
  body: { merchantId: string; name: string; currency: string; tipPercents: number[] },
): Promise<PairedDevice> {
  return (await change<PairedDevice>('POST', '/v1/point-of-sale/devices', { csrfToken: session.csrfToken, body }))!;
}

export async function revokeDevice(session: Session, deviceId: string): Promise<void> {
  await change('DELETE', `/v1/point-of-sale/devices/${encodeURIComponent(deviceId)}`, {
    csrfToken: session.csrfToken,
  });
}
