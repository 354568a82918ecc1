import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { parseAssetId } from '../chains/caip.ts';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import { settlementToken } from '../merchants/settlementResource.ts';
import {
  SETTLEMENT_BATCH_STATUSES,
  SettlementBatch,
  toSettlementBatch,
  totalsOfBatches,
} from './settlementBatchView.ts';

const ListSettlementBatchesQuery = Type.Object(
  {
    merchantId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "Only this merchant's batches; another's is 404" }),
    ),
    status: Type.Optional(Type.Union(SETTLEMENT_BATCH_STATUSES.map((status) => Type.Literal(status)))),
    asset: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'CAIP-19 id of the token (the `caip19/` prefix is optional)',
      }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 4096, description: 'nextCursor of the previous page' })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  },
  { additionalProperties: false },
);

/**
 * The asset a filter names as the batches record it: a token the service lists by its own spelling (an EVM address
 * in any case), any other well-formed CAIP-19 id as given, since batches outlive the networks configured.
 */
function assetOfFilter(ctx: AppContext, asset: string): string {
  const token = settlementToken(ctx.chains, asset);
  if (token) return token.caip19;
  const given = asset.startsWith('caip19/') ? asset.slice('caip19/'.length) : asset;
  if (!parseAssetId(given)) throw ApiError.validation([{ field: 'asset', message: 'must be a CAIP-19 asset id' }]);
  return given;
}

/** A page of batches and the cursor of the next, null on the last. */
export const SettlementBatchList = Type.Object({
  data: Type.Array(SettlementBatch),
  nextCursor: Nullable(Type.String()),
});

export function registerListSettlementBatches(app: App, ctx: AppContext): void {
  app.get(
    '/v1/settlements',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['settlements'],
        summary: "List the settlement batches of the partner's merchants, newest first",
        description:
          "Every transfer made to the merchants' destinations (deleted merchants included), with the payments and fees it covers. merchantId narrows to one merchant; another partner's or an unknown merchant is 404 merchant_not_found.",
        querystring: ListSettlementBatchesQuery,
        response: {
          200: SettlementBatchList,
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const { merchantId, status, limit, cursor } = request.query;
      const asset = request.query.asset === undefined ? undefined : assetOfFilter(ctx, request.query.asset);
      if (merchantId) await merchantOfPartner(ctx.merchants, partnerId, merchantId, { includeDeleted: true });
      const fingerprint = JSON.stringify([partnerId, merchantId ?? null, status ?? null, asset ?? null]);
      const after = cursor ? ctx.cursors.decode<[string, string]>(cursor, fingerprint) : undefined;

      let query = ctx.db
        .selectFrom('settlement_batches as batch')
        .innerJoin('merchants as merchant', 'merchant.id', 'batch.merchant_id')
        .selectAll('batch')
        // The timestamp as text keeps its microseconds, which a Date would round away from the next page's start.
        .select(sql<string>`batch.created_at::text`.as('sort_key'))
        .where('merchant.partner_id', '=', partnerId);
      if (merchantId) query = query.where('batch.merchant_id', '=', merchantId);
      if (status) query = query.where('batch.status', '=', status);
      if (asset) query = query.where('batch.asset', '=', asset);
      if (after)
        query = query.where(sql<boolean>`(batch.created_at, batch.id) < (${after[0]}::timestamptz, ${after[1]})`);
      const rows = await query
        .orderBy('batch.created_at', 'desc')
        .orderBy('batch.id', 'desc')
        .limit(limit + 1)
        .execute();
      const page = ctx.cursors.page(rows, limit, fingerprint, (row) => [row.sort_key, row.id]);
      const totals = await totalsOfBatches(
        ctx.db,
        page.rows.map((row) => row.id),
      );
      return {
        data: page.rows.map(({ sort_key: _sortKey, ...row }) => toSettlementBatch(row, totals.get(row.id), ctx.chains)),
        nextCursor: page.nextCursor,
      };
    },
  );
}
