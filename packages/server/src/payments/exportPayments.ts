import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { stringify } from 'csv-stringify';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { filtersOf, ListPaymentsQuery, partnerListScope, MerchantIdFilter } from './listFilters.ts';
import { paymentListPage } from './paymentListPage.ts';
import { type PaymentRow, paymentSource } from './paymentResource.ts';
import { effectiveStatus, listStatusName } from './stateMachine.ts';

const { cursor: _cursor, limit: _limit, asset: _asset, ...filterProperties } = ListPaymentsQuery.properties;

const ExportQuery = Type.Object(
  {
    ...filterProperties,
    merchantId: MerchantIdFilter,
  },
  { additionalProperties: false },
);

/** Payments read per page while the file streams: each page is one keyset query, no transaction held between. */
const ROWS_PER_PAGE = 500;

/** The file's columns: amounts in minor units, exactly as stored (fiat in its currency's, tokens in theirs). */
const COLUMNS = [
  'paymentId',
  'referenceId',
  'merchantId',
  'merchantName',
  'status',
  'fiatCurrency',
  'fiatAmountMinor',
  'tokenAsset',
  'tokenAmountMinor',
  'feeTotalMinor',
  'settlementAmountMinor',
  'network',
  'buyer',
  'txHash',
  'createdAt',
  'lastUpdatedAt',
  'settledAt',
  'source',
  'paymentLinkId',
] as const;

/**
 * A spreadsheet runs a cell that starts with one of these as a formula: such a value is written after a quote mark,
 * which spreadsheets show as text (OWASP's advice for CSV files).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function cell(value: string | null): string {
  if (value === null) return '';
  return FORMULA_START.test(value) ? `'${value}` : value;
}

function exportRow(row: PaymentRow, merchantName: string, now: Date): string[] {
  return [
    row.id,
    row.reference_id,
    row.merchant_id,
    merchantName,
    listStatusName(effectiveStatus(row, now)),
    row.fiat_currency,
    row.fiat_value,
    row.token_asset,
    row.token_value,
    row.fee_total,
    row.settlement_amount,
    row.network,
    row.buyer_account,
    row.tx_hash,
    row.created_at.toISOString(),
    row.updated_at.toISOString(),
    row.settled_at?.toISOString() ?? null,
    paymentSource(row),
    row.payment_link_id,
  ].map(cell);
}

/**
 * Every payment the list shows for the same filters, as a CSV file, page after page as the client reads it: a
 * page is read only when the last one is written, so a large export holds no more than a page in memory and no
 * database connection between pages.
 */
export function registerExportPayments(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payments/export',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['payments'],
        summary: "Export the partner's payments as CSV",
        description:
          'The payments GET /v1/payments lists for the same filters and order, all of them, as text/csv with a header row. Amounts are minor units, exactly (fiatAmountMinor in the currency, tokenAmountMinor, feeTotalMinor and settlementAmountMinor in the token); a cell that would start with = + - @ is written after a quote mark, so spreadsheets show it as text.',
        querystring: ExportQuery,
        produces: ['text/csv'],
        response: {
          200: { type: 'string', description: 'CSV (RFC 4180), UTF-8' },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const { partnerId } = principalOf(request);
      const { merchantId, ...query } = request.query;
      const scope = await partnerListScope(ctx, partnerId, merchantId);
      const now = ctx.clock.now();
      const order = { ...query, limit: ROWS_PER_PAGE };
      const filters = filtersOf(order, scope, now, request.apiVersion ?? '');
      const merchantNames = new Map(
        (await ctx.db.selectFrom('merchants').select(['id', 'name']).where('partner_id', '=', partnerId).execute()).map(
          (merchant) => [merchant.id, merchant.name],
        ),
      );
      async function* rows() {
        let cursor: string | undefined;
        do {
          const page = await paymentListPage(ctx, filters, { ...order, cursor });
          for (const row of page.rows) yield exportRow(row, merchantNames.get(row.merchant_id) ?? '', now);
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
      }
      const file = Readable.from(rows()).pipe(stringify({ header: true, columns: [...COLUMNS] }));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="payments-${now.toISOString().slice(0, 10)}.csv"`)
        .send(file);
    },
  );
}
