import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINNET_NETWORKS } from '../../src/chains/mainnets.ts';
import { foldPaymentStats } from '../../src/payments/paymentStatsFold.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';
import { BASE_TIME, DAY, insertPayments, NETWORKS, randomPayments } from './support/paymentListModel.ts';

const PREVIEW = { 'pay-version': '2026-02-19.preview' };

/** The older path's statistics for the current list's: one currency of revenue, the first in code order. */
function legacyStats(stats: {
  totalRevenue: { amount: number; currency: string }[];
  totalCustomers: number;
  totalTransactions: number;
}) {
  const [revenue] = [...stats.totalRevenue].sort((a, b) => (a.currency < b.currency ? -1 : 1));
  return {
    total_customers: stats.totalCustomers,
    total_transactions: stats.totalTransactions,
    total_revenue: revenue ?? { amount: 0, currency: 'USD' },
  };
}

/** The older path's page for the current list's page: the same payments in the same order, in its shape. */
function legacyPage(page: { data: any[]; stats: Parameters<typeof legacyStats>[0] }) {
  return {
    data: page.data.map((item) =>
      expect.objectContaining({
        payment_id: item.paymentId,
        reference_id: item.referenceId,
        status: item.status,
        is_terminal: item.isTerminal,
        fiat_amount: Number(item.fiatAmount.value),
        fiat_currency: item.fiatAmount.unit.slice('iso4217/'.length),
        token_amount: item.tokenAmount?.value ?? null,
        tx_hash: item.transaction?.hash ?? null,
        settlement_status: item.settlement ? (item.settlement.settled ? 'settled' : 'pending') : null,
      }),
    ),
    stats: legacyStats(page.stats),
  };
}

describe('GET /v1/merchants/{merchant_id}/payments', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  const older = (query: string, headers: Record<string, string> = {}, merchant = merchantId) =>
    call(server, `/v1/merchants/${merchant}/payments?${query}`, { headers: { 'api-key': partner.apiKey, ...headers } });
  const current = (query: string, headers: Record<string, string> = {}) =>
    call(server, `/v1/merchants/payments?${query}`, {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId, ...headers },
    });

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
    await insertPayments(server.db, partner.partnerId, randomPayments(60, 11, [merchantId]));
    await foldPaymentStats(server.db);
  });
  afterAll(() => server.close());

  describe('happy path', () => {
    const start = new Date(BASE_TIME + 5 * DAY).toISOString();
    const end = new Date(BASE_TIME + 50 * DAY + 3600_000).toISOString();
    it.each([
      ['', ''],
      ['sort_by=amount&sort_dir=asc&limit=7', 'sortBy=amount&sortDir=asc&limit=7'],
      [`start_ts=${start}&end_ts=${end}&limit=5`, `startTs=${start}&endTs=${end}&limit=5`],
      ['asset=usdc&status=succeeded&status=failed', 'token_symbol=usdc&status=succeeded&status=failed'],
      [`network=${NETWORKS[0]},${NETWORKS[2]}&sort_dir=asc`, `network=${NETWORKS[0]},${NETWORKS[2]}&sortDir=asc`],
    ])(
      'answers %s as the current list answers its counterpart, every page, with a Deprecation header',
      async (olderQuery, currentQuery) => {
        let olderCursor = '';
        let currentCursor = '';
        let pages = 0;
        do {
          const fromOlder = await older(`${olderQuery}&cursor=${encodeURIComponent(olderCursor)}`);
          const fromCurrent = await current(`${currentQuery}&cursor=${encodeURIComponent(currentCursor)}`);
          expect(fromOlder.status, fromOlder.text).toBe(200);
          expect(fromOlder.headers.get('deprecation')).toBe('true');
          expect(fromOlder.headers.get('pay-version')).toBe('2026-02-18');
          const { next_cursor: olderNext, ...olderPage } = fromOlder.body;
          const { nextCursor: currentNext, ...currentPage } = fromCurrent.body;
          expect(olderPage).toEqual(legacyPage(currentPage));
          expect(olderNext === null).toBe(currentNext === null);
          olderCursor = olderNext ?? '';
          currentCursor = currentNext ?? '';
          pages += 1;
        } while (olderCursor && pages < 30);
        expect(pages).toBeLessThan(30);
      },
    );

    it('keeps asset as its token filter in the preview version, and takes status=cancelled there', async () => {
      const withAsset = await older('asset=USDC', PREVIEW);
      expect(withAsset.status, withAsset.text).toBe(200);
      expect(withAsset.body.stats).toEqual(legacyStats((await current('token_symbol=USDC')).body.stats));
      const cancelled = await older('status=cancelled&limit=200', PREVIEW);
      expect(cancelled.status, cancelled.text).toBe(200);
      const rows = await server.db
        .selectFrom('payments')
        .select('id')
        .where('merchant_id', '=', merchantId)
        .where('status', '=', 'cancelled')
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(cancelled.body.data.map((item: { payment_id: string }) => item.payment_id))).toEqual(
        new Set(rows.map((row) => row.id)),
      );
    });

    it('is marked deprecated in the OpenAPI document, beside the current lists', async () => {
      const document = (await call(server, '/openapi.json')).body;
      expect(document.paths['/v1/merchants/{merchant_id}/payments'].get.deprecated).toBe(true);
      expect(document.paths['/v1/merchants/payments'].get.deprecated).toBeUndefined();
      const partnerList = document.paths['/v1/payments'].get;
      expect(partnerList.parameters.map((parameter: { name: string }) => parameter.name)).toContain('merchantId');
    });

    it('takes the older X-Api-Key header as its credential, which the current paths do not', async () => {
      const viaLegacyHeader = await call(server, `/v1/merchants/${merchantId}/payments?limit=3`, {
        headers: { 'x-api-key': partner.apiKey },
      });
      expect(viaLegacyHeader.status, viaLegacyHeader.text).toBe(200);
      expect(viaLegacyHeader.body).toEqual((await older('limit=3')).body);
      const wrong = await call(server, `/v1/merchants/${merchantId}/payments`, {
        headers: { 'x-api-key': 'sk_wrong' },
      });
      expect([wrong.status, expectErrorBody(wrong).code]).toEqual([401, 'invalid_api_key']);
      const currentPath = await call(server, '/v1/merchants/payments', {
        headers: { 'x-api-key': partner.apiKey, 'merchant-id': merchantId },
      });
      expect([currentPath.status, expectErrorBody(currentPath).code]).toEqual([401, 'missing_api_key']);
    });

    it('answers each payment flat and in snake_case, as WalletConnect Pay documents the path', async () => {
      const usdc = MAINNET_NETWORKS.flatMap((network) => network.tokens).find(
        (token) => token.chain === 'eip155:8453' && token.symbol === 'USDC',
      )!;
      const [paid] = await server.db
        .updateTable('payments')
        .set({
          token_asset: usdc.caip19,
          token_value: '12340000',
          tx_hash: `0x${'ab'.repeat(32)}`,
          tx_nonce: '7',
          buyer_provider_name: 'Pocket Wallet',
          buyer_provider_icon: 'https://wallet.example/icon.png',
        })
        .where('id', '=', (eb) =>
          eb
            .selectFrom('payments')
            .select('id')
            .where('merchant_id', '=', merchantId)
            .where('status', '=', 'succeeded')
            .where('network', '=', 'eip155:8453')
            .limit(1),
        )
        .returningAll()
        .execute();
      const listed = (await older('limit=200')).body.data.find(
        (item: { payment_id: string }) => item.payment_id === paid!.id,
      );
      expect(listed).toEqual({
        payment_id: paid!.id,
        merchant_id: merchantId,
        reference_id: paid!.reference_id,
        status: 'succeeded',
        is_terminal: true,
        wallet_name: 'Pocket Wallet',
        wallet_logo: 'https://wallet.example/icon.png',
        chain_id: 'eip155:8453',
        buyer_caip10: paid!.buyer_account,
        token_caip19: usdc.caip19,
        token_symbol: paid!.token_symbol,
        token_decimals: 6,
        token_logo: usdc.iconUrl ?? null,
        chain_logo: MAINNET_NETWORKS.find((network) => network.caip2 === 'eip155:8453')!.iconUrl ?? null,
        token_amount: '12340000',
        fiat_amount: Number(paid!.fiat_value),
        fiat_currency: paid!.fiat_currency,
        tx_hash: `0x${'ab'.repeat(32)}`,
        nonce: 7,
        created_at: paid!.created_at.toISOString(),
        last_updated_at: expect.any(String),
        settled_at: null,
        settlement_status: 'pending',
        settlement_tx_hash: null,
      });
    });

    it('treats empty asset= and cursor= as absent', async () => {
      const empty = await older('limit=4&asset=&cursor=');
      expect(empty.status, empty.text).toBe(200);
      expect(empty.body).toEqual((await older('limit=4')).body);
    });
  });

  describe('errors', () => {
    it("reports an unknown merchant and another partner's merchant as 404 not_found, with the Deprecation header", async () => {
      const other = await newPartner(server.db, 'Other partner');
      const theirs = (await createMerchant(server, other.apiKey)).id;
      for (const merchant of ['mrch_unknown', theirs]) {
        const result = await older('', {}, merchant);
        expect([result.status, expectErrorBody(result).code]).toEqual([404, 'merchant_not_found']);
        expect(result.headers.get('deprecation')).toBe('true');
      }
    });

    it('refuses status=cancelled in 2026-02-18, saying that cancelled payments are listed as failed', async () => {
      const result = await older('status=cancelled');
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      expect(expectErrorBody(result).issues?.[0]?.message).toContain('listed as failed');
    });

    it.each([
      ['limit=0'],
      ['limit=201'],
      ['sort_by=name'],
      ['sort_dir=up'],
      ['status=paid'],
      ['start_ts=yesterday'],
      ['network=base'],
      ['startTs=2026-01-01T00:00:00Z'],
      ['referenceId=order'],
      [`asset=${'A'.repeat(17)}`],
      ['start_ts=2026-02-01T00:00:00Z&end_ts=2026-01-01T00:00:00Z'],
    ])('refuses %s with params_validation, with the Deprecation header', async (query) => {
      const result = await older(query);
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
      expect(result.headers.get('deprecation')).toBe('true');
    });

    it('refuses a tampered cursor or one from another order with invalid_params', async () => {
      const cursor: string = (await older('limit=2')).body.next_cursor;
      const otherOrder = await older(`limit=2&sort_by=amount&cursor=${encodeURIComponent(cursor)}`);
      expect([otherOrder.status, expectErrorBody(otherOrder).code]).toEqual([400, 'invalid_params']);
      const tampered = await older(`limit=2&cursor=${encodeURIComponent(`${cursor}x`)}`);
      expect([tampered.status, expectErrorBody(tampered).code]).toEqual([400, 'invalid_params']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/merchants/{merchant_id}/payments',
  scope: 'payments',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'GET',
    path: `/v1/merchants/${(await createMerchant(server, partner.apiKey)).id}/payments`,
  }),
});
