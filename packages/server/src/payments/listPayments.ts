import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { filtersOf, ListPaymentsQuery } from './listFilters.ts';
import { MerchantIdHeader, merchantOfRequest, requireMerchantIdHeader } from './merchantHeader.ts';
import { markDeprecated, PaymentList, paymentListPage } from './paymentListPage.ts';
import { toPaymentItem } from './paymentResource.ts';
import { refundAmountsOf, refundTotalsOf } from './refundTotals.ts';

export function registerListPayments(app: App, ctx: AppContext): void {
  app.get(
    '/v1/merchants/payments',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['payments'],
        summary: "List a merchant's payments with statistics",
        description:
          'Statistics cover every payment matching the filters, not just the page; later pages carry the statistics of the first page in their cursor, so paging costs no recount. Defaults: sortBy=date, sortDir=desc.',
        headers: MerchantIdHeader,
        querystring: ListPaymentsQuery,
        response: { 200: PaymentList, ...errorResponses(404, 502) },
      },
    },
    async (request, reply) => {
      const merchant = await merchantOfRequest(ctx, request);
      const now = ctx.clock.now();
      const filters = filtersOf(request.query, { merchantIds: [merchant.id] }, now, request.apiVersion ?? '');
      if (request.query.asset) markDeprecated(reply);
      const page = await paymentListPage(ctx, filters, request.query);
      const refunds = await refundTotalsOf(
        ctx.db,
        page.rows.map((row) => row.id),
      );
      return {
        data: page.rows.map((row) => ({
          ...toPaymentItem(row, merchant, ctx.chains, ctx.config.baseUrl, now),
          ...refundAmountsOf(row.fiat_currency, refunds.get(row.id)),
        })),
        nextCursor: page.nextCursor,
        stats: page.stats,
      };
    },
  );
}
