import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/database.ts';
import type { MerchantsTable } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { Nullable } from '../http/schemas.ts';
import { andThen, type Eventually } from '../http/eventually.ts';
import type { CachedMerchant, MerchantCache } from './merchantCache.ts';
import { fetchLogo, LogoRejectedError, type FetchedLogo } from './logo.ts';

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

/**
 * The partner's merchant, from the process's merchant cache; another partner's merchant is reported exactly like a
 * missing one (D2). Reads that must see the latest or locked row inside a transaction query the database instead.
 */
export function merchantOfPartner(
  merchants: MerchantCache,
  partnerId: string,
  merchantId: string,
): Eventually<CachedMerchant> {
  return andThen(merchants.get(merchantId), (row) => {
    if (!row || row.partner_id !== partnerId) throw ApiError.notFound(`Merchant ${merchantId.slice(0, 64)} not found.`);
    return row;
  });
}

/** Fetches and checks a logo during the call (D6); a broken rule is a validation issue on `iconUrl`. */
export async function fetchMerchantLogo(ctx: AppContext, url: string): Promise<FetchedLogo> {
  try {
    return await fetchLogo(url, {
      allowPrivateHosts: false,
      timeoutMs: ctx.config.logo.timeoutMs,
      ...ctx.logoFetch,
    });
  } catch (error) {
    if (error instanceof LogoRejectedError) throw ApiError.validation([{ field: 'iconUrl', message: error.message }]);
    throw error;
  }
}

/** Keeps a content-addressed copy of the logo and returns its file name. */
export async function storeLogo(db: Db, logo: FetchedLogo): Promise<string> {
  const file = `${logo.sha256}.${logo.extension}`;
  await db
    .insertInto('logos')
    .values({ file, content_type: logo.contentType, bytes: logo.bytes, width: logo.width, height: logo.height })
    .onConflict((conflict) => conflict.column('file').doNothing())
    .execute();
  return file;
}
