import type { AppContext } from '../context.ts';
import type { Db } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import { type FetchedLogo, fetchLogo, LogoRejectedError } from './logo.ts';

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
