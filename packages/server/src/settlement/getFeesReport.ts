import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import { feesReport } from './feeSchedules.ts';
import { MinorUnits } from './settlementBatchView.ts';

export const FeesReport = Type.Object({
  schedule: Type.Object({
    percentage: Type.String({ description: 'Decimal text: "1.5" is 1.5 percent of the token amount paid' }),
    fixed: Type.Array(
      Type.Object({
        currency: Type.String({ description: 'ISO 4217 code' }),
        amount: MinorUnits('Minor units of the currency, converted at the rate of each payment'),
      }),
    ),
  }),
  fees: Type.Array(
    Type.Object({
      asset: Type.String({ description: 'CAIP-19 id of the token the fees were charged in' }),
      symbol: Nullable(Type.String()),
      decimals: Nullable(
        Type.Integer({ description: "The token's decimals; null when the service no longer lists it" }),
      ),
      payments: Type.Integer({ description: 'Succeeded payments charged in the token' }),
      total: MinorUnits('Token minor units of every fee charged'),
      settled: MinorUnits('Of them, the fees of payments settled already'),
      unsettled: MinorUnits('Of them, the fees of payments awaiting settlement'),
    }),
    { description: 'One line per token, by asset id' },
  ),
});

export function registerGetFeesReport(app: App, ctx: AppContext): void {
  app.get(
    '/v1/fees',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['settlements'],
        summary: "The partner's fee schedule and the fees charged on its succeeded payments, per token",
        description:
          "What `paygate fees report` prints. merchantId narrows the fees to one merchant's payments; another partner's or an unknown merchant is 404 merchant_not_found.",
        querystring: Type.Object(
          { merchantId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
          { additionalProperties: false },
        ),
        response: { 200: FeesReport, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const { merchantId } = request.query;
      if (merchantId) await merchantOfPartner(ctx.merchants, partnerId, merchantId, { includeDeleted: true });
      const report = await feesReport(ctx.db, partnerId, merchantId);
      return {
        schedule: {
          percentage: report.schedule.percentage,
          fixed: report.schedule.fixed.map((fee) => ({ currency: fee.currency, amount: fee.amount.toString() })),
        },
        fees: report.fees.map((line) => ({ ...line, decimals: ctx.chains.token(line.asset)?.decimals ?? null })),
      };
    },
  );
}
