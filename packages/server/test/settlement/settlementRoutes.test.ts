import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextUlid } from '../../src/ids.ts';
import { feesReport, setFeeSchedule } from '../../src/settlement/feeSchedules.ts';
import type { SettlementWorker } from '../../src/settlement/worker.ts';
import { type GatewayTestbed, type OtherPartner, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { BASE_ACCOUNT, BASE_USDC, createMerchant } from '../support/fixtures.ts';
import {
  call,
  type CallResult,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';
import {
  addDestination,
  newEvmDestination,
  paymentItem,
  payInUsdc,
  settleRound,
  settlementWorker,
  usdcAssets,
  usdcBalance,
} from './support.ts';

function expectError(result: CallResult, status: number, code: string, field?: string): void {
  const body = expectErrorBody(result);
  expect({ status: result.status, code: body.code }, result.text).toEqual({ status, code });
  if (field) expect(body.issues?.map((issue) => issue.field)).toContain(field);
}

const sum = (values: string[]) => values.reduce((total, value) => total + BigInt(value), 0n).toString();

describe('GET /v1/settlements, /v1/settlements/{batchId} and /v1/fees after real settlements on the devnet', () => {
  let testbed: GatewayTestbed;
  let worker: SettlementWorker;
  let other: OtherPartner;
  const problems: string[] = [];
  /** Two merchants, each settled in its own round: A with two payments first, then B with one. */
  const settled: Record<'A' | 'B', { merchantId: string; destination: string; paymentIds: string[]; batchId: string }> =
    {} as never;

  const api = (path: string, apiKey = testbed.partner.apiKey) =>
    call(testbed.server, path, { headers: { 'api-key': apiKey } });

  async function settleMerchant(amounts: bigint[]) {
    const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    const destination = newEvmDestination(testbed);
    await addDestination(testbed, merchantId, usdcAssets(testbed).evm.caip19, destination);
    const paymentIds: string[] = [];
    for (const amount of amounts) paymentIds.push(await payInUsdc(testbed, merchantId, 'evm', amount));
    const round = await settleRound(testbed, worker);
    expect(round.created).toHaveLength(1);
    return { merchantId, destination, paymentIds, batchId: round.created[0]! };
  }

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
    await setFeeSchedule(testbed.server.db, testbed.partner.partnerId, {
      percentage: '1.5',
      fixed: [{ currency: 'USD', amount: 30n }],
    });
    worker = settlementWorker(testbed, problems);
    other = await testbed.otherPartner('Other partner');
    settled.A = await settleMerchant([1000n, 2345n]);
    settled.B = await settleMerchant([777n]);
    expect(problems).toEqual([]);
  }, 240_000);

  afterAll(async () => {
    await testbed?.close();
  });

  /** The batch as its payments (as `GET /v1/payments/{id}` shows them) and the chain add up to it. */
  async function expectedBatch(merchant: (typeof settled)['A']) {
    const items = await Promise.all(
      merchant.paymentIds.map((paymentId) => paymentItem(testbed, merchant.merchantId, paymentId)),
    );
    const amount = sum(items.map((item) => item.settlement.amount.value));
    expect(BigInt(amount)).toBe(await usdcBalance(testbed, merchant.destination));
    return {
      id: merchant.batchId,
      merchantId: merchant.merchantId,
      asset: usdcAssets(testbed).evm.caip19,
      network: testbed.evmChain(),
      symbol: 'USDC',
      decimals: 6,
      destination: merchant.destination,
      amount,
      refundsDeducted: '0',
      fees: sum(items.map((item) => item.fees.total.value)),
      paymentCount: items.length,
      status: 'confirmed',
      txHash: items[0].settlement.txHash,
      failureReason: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      completedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    };
  }

  describe('happy path', () => {
    it("lists the partner's batches newest first, each with its payments' sums and the amount its transfer paid", async () => {
      const listed = await api('/v1/settlements');
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body).toEqual({
        data: [await expectedBatch(settled.B), await expectedBatch(settled.A)],
        nextCursor: null,
      });
    });

    it('filters by merchant, status and asset, and pages with the cursor it gives', async () => {
      const ids = async (query: string) => {
        const listed = await api(`/v1/settlements?${query}`);
        expect(listed.status, listed.text).toBe(200);
        return listed.body.data.map((batch: { id: string }) => batch.id);
      };
      const { A, B } = settled;
      const usdc = usdcAssets(testbed).evm.caip19;
      const ether = testbed.chains.network(testbed.evmChain())!.tokens.find((token) => token.method === 'native')!;
      expect(await ids(`merchantId=${A.merchantId}`)).toEqual([A.batchId]);
      expect(await ids('status=confirmed')).toEqual([B.batchId, A.batchId]);
      expect(await ids('status=failed')).toEqual([]);
      // A listed token in any spelling of its address, with or without the `caip19/` prefix.
      expect(await ids(`asset=${encodeURIComponent(`caip19/${usdc.toLowerCase()}`)}`)).toEqual([B.batchId, A.batchId]);
      expect(await ids(`asset=${encodeURIComponent(ether.caip19)}`)).toEqual([]);

      const first = await api('/v1/settlements?limit=1');
      expect(first.body.data.map((batch: { id: string }) => batch.id)).toEqual([B.batchId]);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await api(`/v1/settlements?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
      expect(second.body).toMatchObject({ data: [{ id: A.batchId }], nextCursor: null });
    });

    it('shows a batch with each payment it settled: the fiat amount, what was paid, the fees and the net', async () => {
      const shown = await api(`/v1/settlements/${settled.A.batchId}`);
      expect(shown.status, shown.text).toBe(200);
      const items = await Promise.all(
        settled.A.paymentIds.map((paymentId) => paymentItem(testbed, settled.A.merchantId, paymentId)),
      );
      expect(shown.body).toEqual({
        ...(await expectedBatch(settled.A)),
        payments: items
          .sort((a, b) => a.paymentId.localeCompare(b.paymentId))
          .map((item) => ({
            paymentId: item.paymentId,
            referenceId: item.referenceId,
            fiatAmount: item.fiatAmount,
            paid: item.tokenAmount.value,
            fees: item.fees.total.value,
            net: item.settlement.amount.value,
          })),
      });
      expect(sum(shown.body.payments.map((payment: { net: string }) => payment.net))).toBe(shown.body.amount);
    });

    it("reports the partner's fees as `paygate fees report` does, for all merchants or one", async () => {
      const report = await api('/v1/fees');
      expect(report.status, report.text).toBe(200);
      const cli = await feesReport(testbed.server.db, testbed.partner.partnerId);
      expect(report.body).toEqual({
        schedule: { percentage: '1.5', fixed: [{ currency: 'USD', amount: '30' }] },
        fees: cli.fees.map((line) => ({ ...line, decimals: 6 })),
      });
      const batches = (await api('/v1/settlements')).body.data as { fees: string }[];
      expect(report.body.fees).toEqual([
        {
          asset: usdcAssets(testbed).evm.caip19,
          symbol: 'USDC',
          decimals: 6,
          payments: 3,
          total: sum(batches.map((batch) => batch.fees)),
          settled: sum(batches.map((batch) => batch.fees)),
          unsettled: '0',
        },
      ]);
      const ofA = await api(`/v1/fees?merchantId=${settled.A.merchantId}`);
      expect(ofA.body.fees).toMatchObject([{ payments: 2, total: (await expectedBatch(settled.A)).fees }]);
    });
  });

  describe('errors', () => {
    it('refuses bad filters and a bad limit with the error body naming the field', async () => {
      expectError(await api('/v1/settlements?status=settled'), 400, 'params_validation', 'status');
      expectError(await api('/v1/settlements?limit=0'), 400, 'params_validation', 'limit');
      expectError(await api('/v1/settlements?limit=201'), 400, 'params_validation', 'limit');
      expectError(await api('/v1/settlements?asset=USDC'), 400, 'params_validation', 'asset');
      expectError(await api('/v1/settlements?sortBy=amount'), 400, 'params_validation');
      expectError(await api('/v1/fees?since=2026-01-01'), 400, 'params_validation');
    });

    it('refuses a cursor that is not one it gave, or one of another query', async () => {
      expectError(await api('/v1/settlements?cursor=garbage'), 400, 'invalid_params');
      const first = await api('/v1/settlements?limit=1');
      const [payload, signature] = (first.body.nextCursor as string).split('.');
      expectError(await api(`/v1/settlements?limit=1&cursor=${payload}x.${signature}`), 400, 'invalid_params');
      expectError(
        await api(`/v1/settlements?limit=1&status=confirmed&cursor=${encodeURIComponent(first.body.nextCursor)}`),
        400,
        'invalid_params',
      );
    });

    it('answers a malformed batch id with 400 and an unknown one or merchant with 404', async () => {
      expectError(await api('/v1/settlements/stb_nope'), 400, 'params_validation', 'batchId');
      expectError(await api(`/v1/settlements/${settled.A.batchId.toLowerCase()}`), 400, 'params_validation');
      expectError(await api(`/v1/settlements/stb_${nextUlid()}`), 404, 'not_found');
      expectError(await api('/v1/settlements?merchantId=mrch_unknown'), 404, 'merchant_not_found');
      expectError(await api('/v1/fees?merchantId=mrch_unknown'), 404, 'merchant_not_found');
    });
  });

  describe('security', () => {
    it('refuses every route without an API key', async () => {
      for (const path of ['/v1/settlements', `/v1/settlements/${settled.A.batchId}`, '/v1/fees']) {
        expectError(await call(testbed.server, path), 401, 'missing_api_key');
      }
    });

    it("shows another partner none of the partner's batches, merchants or fees", async () => {
      const key = other.partner.apiKey;
      expectError(await api(`/v1/settlements/${settled.A.batchId}`, key), 404, 'not_found');
      expect((await api('/v1/settlements', key)).body).toEqual({ data: [], nextCursor: null });
      expectError(await api(`/v1/settlements?merchantId=${settled.A.merchantId}`, key), 404, 'merchant_not_found');
      expect((await api('/v1/fees', key)).body).toEqual({ schedule: { percentage: '0', fixed: [] }, fees: [] });
      expectError(await api(`/v1/fees?merchantId=${settled.A.merchantId}`, key), 404, 'merchant_not_found');
    });
  });
});

/** A confirmed batch of the partner's merchant as the settlement worker records one, made at `createdAt`. */
async function insertBatch(server: TestServer, merchantId: string, createdAt: Date): Promise<string> {
  const id = `stb_${nextUlid()}`;
  await server.db
    .insertInto('settlement_batches')
    .values({
      id,
      merchant_id: merchantId,
      asset: BASE_USDC,
      network: 'eip155:8453',
      destination: BASE_ACCOUNT,
      amount: '1000000',
      status: 'confirmed',
      tx_hash: `0x${'ab'.repeat(32)}`,
      created_at: createdAt,
      updated_at: createdAt,
      completed_at: createdAt,
    })
    .execute();
  return id;
}

describe('GET /v1/settlements paging', () => {
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  it('pages through batches made at the same moment once each, newest first, ties by id', async () => {
    const merchantId = (await createMerchant(server, partner.apiKey)).id;
    const moment = new Date('2026-03-01T12:00:00.123Z');
    const older = await insertBatch(server, merchantId, new Date('2026-02-28T12:00:00Z'));
    const sameMoment = [];
    for (let index = 0; index < 3; index++) sameMoment.push(await insertBatch(server, merchantId, moment));
    const newer = await insertBatch(server, merchantId, new Date('2026-03-02T12:00:00Z'));

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await call(server, `/v1/settlements?${query}`, { headers: { 'api-key': partner.apiKey } });
      expect(page.status, page.text).toBe(200);
      seen.push(...page.body.data.map((batch: { id: string }) => batch.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([newer, ...sameMoment.reverse(), older]);
  });
});

runCommonRouteTests({
  name: 'GET /v1/settlements',
  scope: 'payments',
  request: async () => ({ method: 'GET', path: '/v1/settlements' }),
});

runCommonRouteTests({
  name: 'GET /v1/settlements/{batchId}',
  scope: 'payments',
  ownedResource: true,
  request: async (server, partner) => {
    const merchantId = (await createMerchant(server, partner.apiKey)).id;
    return { method: 'GET', path: `/v1/settlements/${await insertBatch(server, merchantId, new Date())}` };
  },
});

runCommonRouteTests({
  name: 'GET /v1/fees',
  scope: 'payments',
  request: async () => ({ method: 'GET', path: '/v1/fees' }),
});
