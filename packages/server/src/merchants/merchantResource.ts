import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { MerchantsTable } from '../db/schema.ts';
import { Nullable } from '../http/schemas.ts';
import type { CachedMerchant } from './merchantCache.ts';

export const MERCHANT_STATUSES = ['active', 'inactive', 'suspended'] as const;

export const Merchant = Type.Object(
  {
    id: Type.String({ description: 'Merchant id, prefix `mrch_`' }),
    name: Type.String(),
    email: Type.String(),
    status: Type.Union(MERCHANT_STATUSES.map((status) => Type.Literal(status))),
    iconUrl: Nullable(Type.String({ description: "The service's stored copy of the merchant logo" })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Merchant' },
);

export const MerchantEnvelope = Type.Object({ merchant: Merchant });

export const MerchantName = Type.String({ minLength: 1, maxLength: 256 });
export const MerchantEmail = Type.String({ format: 'merchant-email', maxLength: 254 });
export const IconUrl = Type.String({
  maxLength: 2048,
  description: 'Public HTTPS URL of a square logo, 500 to 4096 px',
});
export const MerchantIdParams = Type.Object({ merchantId: Type.String({ maxLength: 64 }) });

export function logoUrl(baseUrl: string, file: string): string {
  return `${baseUrl}/assets/logos/${file}`;
}

export function toMerchant(row: Selectable<MerchantsTable>, baseUrl: string) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    status: row.status,
    iconUrl: row.logo_file ? logoUrl(baseUrl, row.logo_file) : null,
    createdAt: row.created_at.toISOString(),
  };
}

const cachedViews = new WeakMap<CachedMerchant, ReturnType<typeof toMerchant>>();

/**
 * The API view of a row from the merchant cache, made once per cached row: the cache hands out the same row object
 * until the merchant changes, and GET /v1/merchants/{id} is the hottest read.
 */
export function cachedMerchantView(row: CachedMerchant, baseUrl: string): ReturnType<typeof toMerchant> {
  let view = cachedViews.get(row);
  if (!view) {
    view = toMerchant(row, baseUrl);
    cachedViews.set(row, view);
  }
  return view;
}
