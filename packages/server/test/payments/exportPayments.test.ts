import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant, createPayment, insertMerchantWithPayments } from '../support/fixtures.ts';
import {
  type CallResult,
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

interface ListedPayment {
  paymentId: string;
  referenceId: string;
  status: string;
  source: string;
  merchant: { id: string; name: string };
  fiatAmount: { unit: string; value: string };
  createdAt: string;
}

describe('GET /v1/payments/export: the filtered list as a CSV file', () => {
  let server: TestServer;
  let partner: TestPartner;
  let shopId: string;
  let otherShopId: string;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    shopId = (await createMerchant(server, partner.apiKey)).id;
    // A name a spreadsheet would run as a formula, with a comma and a quote the file must keep.
    otherShopId = (
      await createMerchant(server, partner.apiKey, {
        merchantName: '=HYPERLINK("x"), "Bob\'s" shop',
        merchantEmail: 'bob@bobs-shop.com',
      })
    ).id;
    for (const [merchantId, amount, referenceId] of [
      [shopId, '1000', 'order-1'],
      [shopId, '1999', 'order 2, blue'],
      [otherShopId, '5', 'order-3'],
      [shopId, '123456789', '+order-4'],
    ] as const) {
      await createPayment(server, partner.apiKey, merchantId, {
        amount: { unit: 'iso4217/USD', value: amount },
        referenceId,
      });
    }
  });
  afterAll(() => server?.close());

  const headers = () => ({ 'api-key': partner.apiKey });

  async function exported(query = '') {
    const result = await call(server, `/v1/payments/export${query}`, { headers: headers() });
    expect(result.status, result.text).toBe(200);
    return { result, rows: parse(result.text, { columns: true }) as Record<string, string>[] };
  }

  async function listed(query = ''): Promise<ListedPayment[]> {
    const all: ListedPayment[] = [];
    let cursor: string | null = null;
    do {
      const separator = query ? '&' : '?';
      const page: CallResult = await call(
        server,
        `/v1/payments${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`,
        { headers: headers() },
      );
      all.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    return all;
  }

  describe('happy path', () => {
    it('holds every payment the list shows, in its order, with exact minor units', async () => {
      const { result, rows } = await exported();
      expect(result.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(result.headers.get('content-disposition')).toMatch(
        /^attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const list = await listed();
      expect(list).toHaveLength(4);
      expect(
        rows.map((row) => [
          row.paymentId,
          row.referenceId,
          row.merchantId,
          row.status,
          row.fiatCurrency,
          row.fiatAmountMinor,
          row.source,
        ]),
      ).toEqual(
        list.map((payment) => [
          payment.paymentId,
          payment.referenceId.startsWith('+') ? `'${payment.referenceId}` : payment.referenceId,
          payment.merchant.id,
          payment.status,
          payment.fiatAmount.unit.slice('iso4217/'.length),
          payment.fiatAmount.value,
          payment.source,
        ]),
      );
      expect(rows.map((row) => row.fiatAmountMinor).sort()).toEqual(['1000', '123456789', '1999', '5']);
      expect(rows.map((row) => row.createdAt)).toEqual(list.map((payment) => payment.createdAt));
      // Cells a spreadsheet would run are written as text; commas and quotes survive.
      expect(rows.find((row) => row.merchantId === otherShopId)?.merchantName).toBe(`'=HYPERLINK("x"), "Bob's" shop`);
      expect(rows.map((row) => row.referenceId)).toContain('order 2, blue');
    });

    it('takes the list filters: merchant, status, reference and order', async () => {
      const { rows: ofOther } = await exported(`?merchantId=${otherShopId}`);
      expect(ofOther.map((row) => row.referenceId)).toEqual(['order-3']);
      const { rows: byAmount } = await exported('?sortBy=amount&sortDir=asc');
      expect(byAmount.map((row) => row.fiatAmountMinor)).toEqual(['5', '1000', '1999', '123456789']);
      const { rows: byReference } = await exported('?referenceId=blue');
      expect(byReference.map((row) => row.referenceId)).toEqual(['order 2, blue']);
      const { rows: fromAgents } = await exported('?source=x402');
      expect(fromAgents).toEqual([]);
      const { rows: fromApi } = await exported('?source=api');
      expect(fromApi).toHaveLength(4);
      const { rows: succeeded } = await exported('?status=succeeded');
      expect(succeeded).toEqual([]);
      const { rows: unpaid } = await exported('?status=requires_action');
      expect(unpaid.map((row) => row.paymentId).sort()).toEqual(
        (await listed('?status=requires_action')).map((p) => p.paymentId).sort(),
      );
    });

    it('streams a set larger than a page whole, each payment once', async () => {
      const bulk = await insertMerchantWithPayments(
        server.db,
        'mrch_export_bulk',
        Array.from({ length: 1_203 }, (_, index) => `pay_export_${String(index).padStart(5, '0')}`),
      );
      const result = await call(server, '/v1/payments/export', { headers: { 'api-key': bulk.apiKey } });
      const rows = parse(result.text, { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(1_203);
      expect(new Set(rows.map((row) => row.paymentId)).size).toBe(1_203);
      expect(rows.every((row) => row.merchantName === 'mrch_export_bulk')).toBe(true);
    });
  });

  describe('errors', () => {
    it('refuses a filter the list refuses, and answers another partner’s merchant as not found', async () => {
      const bad = await call(server, '/v1/payments/export?status=paid', { headers: headers() });
      expect([bad.status, expectErrorBody(bad).code]).toEqual([400, 'params_validation']);
      const other = await newPartner(server.db, 'Other partner');
      const theirs = (await createMerchant(server, other.apiKey)).id;
      const foreign = await call(server, `/v1/payments/export?merchantId=${theirs}`, { headers: headers() });
      expect([foreign.status, expectErrorBody(foreign).code]).toEqual([404, 'merchant_not_found']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/payments/export',
  scope: 'payments',
  request: async () => ({ method: 'GET', path: '/v1/payments/export' }),
});
