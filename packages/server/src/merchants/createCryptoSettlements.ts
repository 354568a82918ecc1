import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError, type Issue } from '../http/errors.ts';
import { requireIdempotencyKey, runIdempotently } from '../http/idempotency.ts';
import { errorResponses, IdempotencyKeyHeader } from '../http/schemas.ts';
import { sendStoredResponse } from '../http/storedResponse.ts';
import { newId } from '../ids.ts';
import { MerchantIdParams } from './merchantResource.ts';
import { merchantOfPartner } from './merchantOfPartner.ts';
import {
  CryptoSettlement,
  destinationIssue,
  SettlementAsset,
  SettlementDestination,
  settlementToken,
  toCryptoSettlement,
} from './settlementResource.ts';

const CreateCryptoSettlementsBody = Type.Object(
  {
    settlements: Type.Array(
      Type.Object({ asset: SettlementAsset, destination: SettlementDestination }, { additionalProperties: false }),
      { minItems: 1, maxItems: 50 },
    ),
  },
  { additionalProperties: false },
);

function assetConflict(asset: string): ApiError {
  return new ApiError(
    'settlement_asset_conflict',
    `A settlement destination for ${asset} already exists for this merchant.`,
    {
      asset,
    },
  );
}

export function registerCreateCryptoSettlements(app: App, ctx: AppContext): void {
  app.post(
    '/v1/merchants/:merchantId/settlements/crypto',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['settlements'],
        summary: 'Register crypto settlement destinations',
        description: 'One destination per (merchant, asset); all are stored or none.',
        headers: IdempotencyKeyHeader,
        params: MerchantIdParams,
        body: CreateCryptoSettlementsBody,
        response: { 201: Type.Object({ settlements: Type.Array(CryptoSettlement) }), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const { partnerId } = principalOf(request);
      const key = requireIdempotencyKey(request.headers['idempotency-key']);
      const merchant = await merchantOfPartner(ctx.merchants, partnerId, request.params.merchantId, {
        asResource: true,
      });

      const issues: Issue[] = [];
      const requested = request.body.settlements.map(({ asset, destination }, index) => {
        const token = settlementToken(ctx.chains, asset);
        if (!token) {
          issues.push({ field: `settlements.${index}.asset`, message: 'is not a CAIP-19 id of a supported token' });
          return undefined;
        }
        const issue = destinationIssue(ctx.chains, token, destination, `settlements.${index}.destination`);
        if (issue) issues.push(issue);
        return { asset: token.caip19, destination };
      });
      if (issues.length) throw ApiError.validation(issues);
      const settlements = requested.filter((entry) => entry !== undefined);
      const seen = new Set<string>();
      for (const { asset } of settlements) {
        if (seen.has(asset)) throw assetConflict(asset);
        seen.add(asset);
      }
      await ctx.screening.check(
        'settlement_destination',
        settlements.map(({ destination }) => destination),
        { merchantId: merchant.id },
      );

      const response = await runIdempotently(
        ctx.db,
        { partnerId, scope: `POST /v1/merchants/${merchant.id}/settlements/crypto`, key, fingerprint: request.body },
        async (trx) => {
          const rows = await trx
            .insertInto('crypto_settlements')
            .values(
              settlements.map(({ asset, destination }) => ({
                id: newId('crypto'),
                merchant_id: merchant.id,
                asset,
                destination,
              })),
            )
            .onConflict((conflict) => conflict.columns(['merchant_id', 'asset']).doNothing())
            .returningAll()
            .execute();
          if (rows.length !== settlements.length) {
            const stored = new Set(rows.map((row) => row.asset));
            throw assetConflict(settlements.find(({ asset }) => !stored.has(asset))?.asset ?? '');
          }
          return { status: 201, body: JSON.stringify({ settlements: rows.map(toCryptoSettlement) }) };
        },
      );
      ctx.merchants.invalidate(merchant.id);
      return sendStoredResponse(reply, response);
    },
  );
}
