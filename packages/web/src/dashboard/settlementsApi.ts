import { getJson } from '../ui/api.ts';
import type { Answer } from './apiTypes.ts';

export type SettlementBatchListAnswer = Answer<'/v1/settlements'>;
export type SettlementBatchView = SettlementBatchListAnswer['data'][number];
export type SettlementBatchDetail = Answer<'/v1/settlements/{batchId}'>;
export type FeesReportAnswer = Answer<'/v1/fees'>;

/** A page of the partner's settlement batches (`GET /v1/settlements`) for the query (filters, `cursor`, `limit`). */
export async function loadSettlementBatches(
  query: URLSearchParams,
  signal: AbortSignal,
): Promise<SettlementBatchListAnswer> {
  return (await getJson<SettlementBatchListAnswer>(`/v1/settlements?${query}`, { signal })).body;
}

/** A batch with its payments; 404 for another partner's. */
export async function loadSettlementBatch(batchId: string, signal: AbortSignal): Promise<SettlementBatchDetail> {
  return (await getJson<SettlementBatchDetail>(`/v1/settlements/${encodeURIComponent(batchId)}`, { signal })).body;
}

/** The partner's fee schedule and the fees charged per token (`GET /v1/fees`), of one merchant when given. */
export async function loadFeesReport(merchantId: string | undefined, signal: AbortSignal): Promise<FeesReportAnswer> {
  const query = merchantId ? `?${new URLSearchParams({ merchantId })}` : '';
  return (await getJson<FeesReportAnswer>(`/v1/fees${query}`, { signal })).body;
}
