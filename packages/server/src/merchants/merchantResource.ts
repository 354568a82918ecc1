import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { MerchantsTable } from '../db/schema.ts';
import { Nullable } from '../http/schemas.ts';
import type { CachedMerchant } from './merchantCache.ts';
import {
  type SettlementDestinationRows,
  SettlementDestinations,
  toSettlementDestinations,
} from './settlementResource.ts';

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

/** GET /v1/merchants/{merchantId}: the merchant with its settlement destinations. */
export const MerchantWithSettlementsEnvelope = Type.Object({
  merchant: Type.Object({ ...Merchant.properties, settlements: SettlementDestinations }),
});

/** What DELETE answers, also when the resource was deleted before. */
export const DeletedResource = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

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

const viewsWithSettlements = new WeakMap<
  CachedMerchant,
  { settlements: SettlementDestinationRows; view: ReturnType<typeof toMerchantWithSettlements> }
>();

function toMerchantWithSettlements(row: CachedMerchant, settlements: SettlementDestinationRows, baseUrl: string) {
  return { ...toMerchant(row, baseUrl), settlements: toSettlementDestinations(settlements) };
}

/**
 * The API view of a merchant from the cache with its settlement destinations, made once per cached pair: the cache
 * hands out the same objects until the merchant or a destination changes, and GET /v1/merchants/{id} is the hottest
 * read.
 */
export function cachedMerchantWithSettlementsView(
  row: CachedMerchant,
  settlements: SettlementDestinationRows,
  baseUrl: string,
): ReturnType<typeof toMerchantWithSettlements> {
  const cached = viewsWithSettlements.get(row);
  if (cached?.settlements === settlements) return cached.view;
  const view = toMerchantWithSettlements(row, settlements, baseUrl);
  viewsWithSettlements.set(row, { settlements, view });
  return view;
}
