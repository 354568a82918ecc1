import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Db } from '../db/database.ts';
import type { SettlementBatchStatus } from '../db/schema.ts';
import { Nullable } from '../http/schemas.ts';
import type { BatchRow } from './batches.ts';

export const SETTLEMENT_BATCH_STATUSES = [
  'claimed',
  'sent',
  'confirmed',
  'failed',
] as const satisfies readonly SettlementBatchStatus[];

/** Token minor units on the wire: a string of digits. */
export const MinorUnits = (description: string) => Type.String({ pattern: '^[0-9]+$', description });

/** One transfer from the collector to a merchant's destination, of the payments it settles in one asset (D16). */
export const SettlementBatch = Type.Object({
  id: Type.String({ description: 'Prefix `stb_`' }),
  merchantId: Type.String(),
  asset: Type.String({ description: 'CAIP-19 id of the token settled in' }),
  network: Type.String({ description: 'CAIP-2 id of its network' }),
  symbol: Nullable(Type.String({ description: "The token's symbol; null when the service no longer lists it" })),
  decimals: Nullable(Type.Integer({ description: "The token's decimals; null when the service no longer lists it" })),
  destination: Type.String({ description: 'CAIP-10 account paid, as the destination was when the batch was made' }),
  amount: MinorUnits('Token minor units transferred: the net amounts of its payments less `refundsDeducted`'),
  refundsDeducted: MinorUnits("Token minor units of the merchant's on-chain refunds taken from this batch"),
  fees: MinorUnits('Token minor units of the fees of its payments, kept by the collector'),
  paymentCount: Type.Integer({ minimum: 0 }),
  status: Type.Union(
    SETTLEMENT_BATCH_STATUSES.map((status) => Type.Literal(status)),
    {
      description:
        'claimed: made, transfer not sent yet; sent: transfer sent, not final; confirmed: final at depth; failed: the transfer could not land and its payments wait for a later batch',
    },
  ),
  txHash: Nullable(Type.String({ description: 'The transfer, once confirmed' })),
  failureReason: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  completedAt: Nullable(Type.String({ format: 'date-time', description: 'When it was confirmed or failed' })),
});

/** What a batch's payments add up to: how many there are and the fees charged on them. */
export interface BatchTotals {
  paymentCount: number;
  fees: bigint;
}

/** The payment count and summed fees of each batch named, by batch id; a batch without payments is absent. */
export async function totalsOfBatches(db: Db, batchIds: string[]): Promise<Map<string, BatchTotals>> {
  if (batchIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('settlement_batch_payments as settled')
    .innerJoin('payments as payment', 'payment.id', 'settled.payment_id')
    .select([
      'settled.batch_id',
      sql<string>`count(*)`.as('payments'),
      sql<string>`coalesce(sum(payment.fee_total), 0)::text`.as('fees'),
    ])
    .where('settled.batch_id', 'in', batchIds)
    .groupBy('settled.batch_id')
    .execute();
  return new Map(
    rows.map((row) => [row.batch_id, { paymentCount: Number(row.payments), fees: BigInt(row.fees) }] as const),
  );
}

export function toSettlementBatch(row: BatchRow, totals: BatchTotals | undefined, chains: ChainRegistry) {
  const token = chains.token(row.asset);
  return {
    id: row.id,
    merchantId: row.merchant_id,
    asset: row.asset,
    network: row.network,
    symbol: token?.symbol ?? null,
    decimals: token?.decimals ?? null,
    destination: row.destination,
    amount: row.amount,
    refundsDeducted: row.refunds_deducted,
    fees: (totals?.fees ?? 0n).toString(),
    paymentCount: totals?.paymentCount ?? 0,
    status: row.status,
    txHash: row.tx_hash,
    failureReason: row.failure_reason,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
  };
}
