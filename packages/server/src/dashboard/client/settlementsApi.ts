import type { Static } from '@sinclair/typebox';
import type { FeesReport } from '../../settlement/getFeesReport.ts';
import type { SettlementBatchWithPayments } from '../../settlement/getSettlementBatch.ts';
import type { SettlementBatchList } from '../../settlement/listSettlementBatches.ts';
import { getJson } from './api.ts';

// The API's answers as its own schemas describe them (types only: nothing of the server is bundled).
export type SettlementBatchListAnswer = Static<typeof SettlementBatchList>;
export type SettlementBatchView = SettlementBatchListAnswer['data'][number];
export type SettlementBatchDetail = Static<typeof SettlementBatchWithPayments>;
export type FeesReportAnswer = Static<typeof FeesReport>;

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
