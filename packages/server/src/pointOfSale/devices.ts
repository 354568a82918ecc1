import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { AppContext } from '../context.ts';
import type { MerchantsTable, PointOfSaleDevicesTable } from '../db/schema.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { Nullable } from '../http/schemas.ts';
import { logoUrl } from '../merchants/merchantResource.ts';
import type { FastifyRequest } from 'fastify';

export type DeviceRow = Selectable<PointOfSaleDevicesTable>;

/** How long a pairing link may be claimed: long enough to walk to the counter, short enough to leak little. */
export const PAIRING_LIFETIME_MS = 10 * 60_000;

/** Where the point-of-sale app is served, on the API's origin, which it calls with its key. */
export const POINT_OF_SALE_PATH = '/pos';

export function newDeviceKey(): string {
  return `pos_${randomBytes(32).toString('base64url')}`;
}

export function newPairingToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The token rides in the fragment, which browsers never send: it stays out of every request line and log. */
export function pairingUrl(baseUrl: string, token: string): string {
  return `${baseUrl}${POINT_OF_SALE_PATH}#pair=${token}`;
}

export const TipPercents = Type.Array(Type.Integer({ minimum: 1, maximum: 100 }), {
  maxItems: 4,
  uniqueItems: true,
  description: 'Tips the device offers, whole percents of the amount (rounded half up to the minor unit); empty: none',
});

type DeviceStatus = 'pairing' | 'pairing_expired' | 'paired' | 'revoked';

function deviceStatus(row: DeviceRow, now: Date): DeviceStatus {
  if (row.revoked_at) return 'revoked';
  if (row.paired_at) return 'paired';
  return row.pairing_expires_at.getTime() > now.getTime() ? 'pairing' : 'pairing_expired';
}

/** A device as its partner sees it: never its key, only the first characters it was given with. */
export const DeviceView = Type.Object({
  deviceId: Type.String(),
  merchantId: Type.String(),
  name: Type.String(),
  currency: Type.String({ description: 'ISO 4217 code the device charges in' }),
  tipPercents: TipPercents,
  status: Type.Union(
    ['pairing', 'pairing_expired', 'paired', 'revoked'].map((status) => Type.Literal(status)),
    { description: 'pairing: its link can still be claimed; paired: it has its key; revoked: it can do nothing' },
  ),
  keyPrefix: Nullable(Type.String({ description: "The first characters of the device's key" })),
  pairingExpiresAt: Type.String({ format: 'date-time' }),
  pairedAt: Nullable(Type.String({ format: 'date-time' })),
  revokedAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
});

export function toDeviceView(row: DeviceRow, now: Date) {
  return {
    deviceId: row.id,
    merchantId: row.merchant_id,
    name: row.name,
    currency: row.currency,
    tipPercents: row.tip_percents,
    status: deviceStatus(row, now),
    keyPrefix: row.key_prefix,
    pairingExpiresAt: row.pairing_expires_at.toISOString(),
    pairedAt: row.paired_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/** What a device knows of itself: what it charges in, what tips it offers, whose till it is. */
export const DeviceSelfView = Type.Object({
  deviceId: Type.String(),
  name: Type.String(),
  currency: Type.String({ description: 'ISO 4217 code the device charges in' }),
  tipPercents: TipPercents,
  merchant: Type.Object({ id: Type.String(), name: Type.String(), iconUrl: Nullable(Type.String()) }),
});

export function toDeviceSelfView(
  row: DeviceRow,
  merchant: Pick<Selectable<MerchantsTable>, 'id' | 'name' | 'logo_file'>,
  baseUrl: string,
) {
  return {
    deviceId: row.id,
    name: row.name,
    currency: row.currency,
    tipPercents: row.tip_percents,
    merchant: {
      id: merchant.id,
      name: merchant.name,
      iconUrl: merchant.logo_file ? logoUrl(baseUrl, merchant.logo_file) : null,
    },
  };
}

/** The device calling a point-of-sale route (whose auth admits only a device's key). */
export function deviceOf(request: FastifyRequest): Extract<ReturnType<typeof principalOf>, { kind: 'device' }> {
  const principal = principalOf(request);
  if (principal.kind !== 'device') throw new ApiError('forbidden', 'Only a paired point-of-sale device may.');
  return principal;
}

/**
 * The calling device's row with its merchant's, read fresh: a revoke (in any process, whatever the credential cache
 * still holds) or a merchant's suspension shows at once. A revoked device is 401 `invalid_device_key`.
 */
export async function deviceWithMerchant(ctx: AppContext, deviceId: string) {
  const row = await ctx.db
    .selectFrom('point_of_sale_devices as device')
    .innerJoin('merchants', 'merchants.id', 'device.merchant_id')
    .selectAll('device')
    .select(['merchants.name as merchant_name', 'merchants.logo_file', 'merchants.status as merchant_status'])
    .where('device.id', '=', deviceId)
    .where('device.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ApiError('invalid_device_key');
  return row;
}
