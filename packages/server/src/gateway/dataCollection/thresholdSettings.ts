import type { Db } from '../../db/database.ts';
import {
  DataThresholdError,
  type DataThreshold,
  formatDataThreshold,
  type MerchantDataThreshold,
  parseDataThreshold,
} from './threshold.ts';

/** `none` (no buyer data asked) or a threshold such as `USD:100000`. */
export function parsePartnerDataThreshold(text: string): DataThreshold | null {
  return text === 'none' ? null : parseDataThreshold(text);
}

/** A partner's threshold as `parsePartnerDataThreshold` reads it back: `none`, `USD:100000` or `100000`. */
export function formatPartnerDataThreshold(threshold: DataThreshold | null): string {
  return threshold ? formatDataThreshold(threshold) : 'none';
}

/** `inherit` (the partner's), `none` (never, whatever the partner's) or the merchant's own threshold. */
export function parseMerchantDataThreshold(text: string): MerchantDataThreshold {
  if (text === 'inherit') return { kind: 'inherit' };
  if (text === 'none') return { kind: 'never' };
  return { kind: 'threshold', threshold: parseDataThreshold(text) };
}

export async function setPartnerDataThreshold(
  db: Db,
  partnerId: string,
  threshold: DataThreshold | null,
): Promise<void> {
  const result = await db
    .updateTable('partners')
    .set({ data_threshold_currency: threshold?.currency ?? null, data_threshold_amount: threshold?.amount ?? null })
    .where('id', '=', partnerId)
    .executeTakeFirst();
  if (!result.numUpdatedRows) throw new DataThresholdError(`partner ${partnerId} does not exist`);
}

export async function setMerchantDataThreshold(
  db: Db,
  merchantId: string,
  setting: MerchantDataThreshold,
): Promise<void> {
  const threshold = setting.kind === 'threshold' ? setting.threshold : null;
  const result = await db
    .updateTable('merchants')
    .set({
      data_threshold_override: setting.kind,
      data_threshold_currency: threshold?.currency ?? null,
      data_threshold_amount: threshold?.amount ?? null,
    })
    .where('id', '=', merchantId)
    .executeTakeFirst();
  if (!result.numUpdatedRows) throw new DataThresholdError(`merchant ${merchantId} does not exist`);
}
