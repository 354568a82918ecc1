import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { filtersOf, ListPaymentsQuery, partnerListScope, MerchantIdFilter } from './listFilters.ts';
import { markDeprecated, PaymentList, paymentListPage } from './paymentListPage.ts';
import { type MerchantRow, type PaymentRow, toPaymentItem } from './paymentResource.ts';
import { refundAmountsOf, refundTotalsOf } from './refundTotals.ts';

const PartnerPaymentsQuery = Type.Object(
  {
    ...ListPaymentsQuery.properties,
    merchantId: MerchantIdFilter,
  },
  { additionalProperties: false },
);

type PageMerchant = Pick<MerchantRow, 'id' | 'name' | 'logo_file'>;

/** The merchants of a page's payments, read at once; a deleted merchant still names its payments. */
async function merchantsOfRows(ctx: AppContext, rows: PaymentRow[]): Promise<Map<string, PageMerchant>> {
  const ids = [...new Set(rows.map((row) => row.merchant_id))];
  if (ids.length === 0) return new Map();
  const merchants = await ctx.db
    .selectFrom('merchants')
    .select(['id', 'name', 'logo_file'])
    .where('id', 'in', ids)
    .execute();
  return new Map(merchants.map((merchant) => [merchant.id, merchant]));
}

export function registerListPartnerPayments(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payments',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['payments'],
        summary: "List the payments of all the partner's merchants with statistics",
        description:
          "The filters, order, cursor and statistics of GET /v1/merchants/payments over every merchant of the partner, deleted merchants included; no Merchant-Id. merchantId narrows to one merchant, or to several when repeated; another partner's or an unknown merchant is 404 merchant_not_found.",
        querystring: PartnerPaymentsQuery,
        response: { 200: PaymentList, ...errorResponses(404, 502) },
      },
    },
    async (request, reply) => {
      const { partnerId } = principalOf(request);
      const { merchantId, ...query } = request.query;
      const scope = await partnerListScope(ctx, partnerId, merchantId);
      const now = ctx.clock.now();
      const filters = filtersOf(query, scope, now, request.apiVersion ?? '');
      if (query.asset) markDeprecated(reply);
      const page = await paymentListPage(ctx, filters, query);
      const [merchants, refunds] = await Promise.all([
        merchantsOfRows(ctx, page.rows),
        refundTotalsOf(
          ctx.db,
          page.rows.map((row) => row.id),
        ),
      ]);
      return {
        // Every payment's merchant row exists: a foreign key, and merchants are only ever soft-deleted.
        data: page.rows.map((row) => ({
          ...toPaymentItem(row, merchants.get(row.merchant_id)!, ctx.chains, ctx.config.baseUrl, now),
          ...refundAmountsOf(row.fiat_currency, refunds.get(row.id)),
        })),
        nextCursor: page.nextCursor,
        stats: page.stats,
      };
    },
  );
}
