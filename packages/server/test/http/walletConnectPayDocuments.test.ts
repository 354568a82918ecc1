import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayTestbed,
  signSolanaAsWallet,
  signTypedDataAsWallet,
  startGatewayTestbed,
} from '../gateway/support/gatewayTestbed.ts';
import { setPartnerDataThreshold } from '../../src/gateway/dataCollection/thresholdSettings.ts';
import { newEvmDestination, usdcAssets } from '../settlement/support.ts';
import { createMerchant } from '../support/fixtures.ts';
import { call, type CallOptions, type CallResult } from '../support/testServer.ts';
import {
  DOCUMENTED_VERSIONS,
  type DocumentedVersion,
  type Mismatch,
  WalletConnectPayDocument,
} from '../support/walletConnectPayDocuments.ts';

/**
 * Every operation of WalletConnect Pay's two published API documents, called as a client written from them would,
 * under the version each document describes: every answer, happy or refused, must name that version in
 * `WCP-Version`, have a status the operation documents and a body that matches its schema; and every status below
 * 500 that an operation documents must have been answered at least once (5xx are the service failing, which no
 * honest request provokes).
 */
describe.each(DOCUMENTED_VERSIONS)("WalletConnect Pay's %s document", (version: DocumentedVersion) => {
  const document = new WalletConnectPayDocument(version);
  const mismatches: Mismatch[] = [];
  const answered = new Set<string>();
  let testbed: GatewayTestbed;
  let apiKey: string;
  let merchantId: string;

  beforeAll(async () => {
    testbed = await startGatewayTestbed({ env: { DATA_ENCRYPTION_KEY: randomBytes(32).toString('hex') } });
    apiKey = testbed.partner.apiKey;
    merchantId = (await createMerchant(testbed.server, apiKey)).id;
  }, 180_000);
  afterAll(() => testbed?.close());

  /** Calls `path` as `operation` of the document, under its version, and records what the document says of it. */
  async function answer(operation: string, path: string, options: CallOptions = {}): Promise<CallResult> {
    const result = await call(testbed.server, path, {
      ...options,
      headers: { 'wcp-version': version, ...options.headers },
    });
    answered.add(`${operation} ${result.status}`);
    const named = result.headers.get('wcp-version');
    if (named !== version && result.body?.code !== 'invalid_api_version') {
      mismatches.push({ version, operation, status: result.status, problem: `WCP-Version: ${named}` });
    }
    for (const problem of document.check(operation, result)) {
      mismatches.push({ version, operation, status: result.status, problem });
    }
    return result;
  }

  const merchantApi = (headers: Record<string, string> = {}) => ({
    'api-key': apiKey,
    'merchant-id': merchantId,
    ...headers,
  });
  const wallet = () => testbed.walletHeaders;
  const usd = (value: string) => ({ unit: 'iso4217/USD', value });

  async function newPayment(value = '1000'): Promise<string> {
    const created = await answer('POST /v1/payments', '/v1/payments', {
      method: 'POST',
      headers: merchantApi(),
      body: {
        amount: usd(value),
        referenceId: `order-${randomUUID()}`,
        ...(version.endsWith('.preview') ? { checkout: null } : {}),
      },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.paymentId;
  }

  it('answers the merchant operations as documented, happy and refused', async () => {
    const merchants = '/v1/merchants';
    const created = await answer('POST /v1/merchants', merchants, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'idempotency-key': `shop-${version}` },
      body: { merchantName: 'Documented shop', merchantEmail: 'owner@documented.shop' },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.merchant.id as string;
    const conflicting = await answer('POST /v1/merchants', merchants, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'idempotency-key': `shop-${version}` },
      body: { merchantName: 'Another shop', merchantEmail: 'owner@documented.shop' },
    });
    expect(conflicting.status).toBe(409);
    await answer('POST /v1/merchants', merchants, {
      method: 'POST',
      headers: { 'api-key': apiKey },
      body: { merchantName: 'No key shop', merchantEmail: 'owner@documented.shop' },
    });
    await answer('POST /v1/merchants', merchants, {
      method: 'POST',
      headers: { 'idempotency-key': randomUUID() },
      body: { merchantName: 'Anonymous shop', merchantEmail: 'owner@documented.shop' },
    });

    await answer('GET /v1/merchants', `${merchants}?search=Documented`, { headers: { 'api-key': apiKey } });
    await answer('GET /v1/merchants', `${merchants}?limit=0`, { headers: { 'api-key': apiKey } });
    await answer('GET /v1/merchants', merchants, { headers: { 'api-key': 'sk_not_a_key' } });

    const one = `${merchants}/${id}`;
    const unknown = `${merchants}/mrch_unknown${randomUUID().slice(0, 8)}`;
    await answer('GET /v1/merchants/{merchantId}', one, { headers: { 'api-key': apiKey } });
    await answer('GET /v1/merchants/{merchantId}', unknown, { headers: { 'api-key': apiKey } });
    await answer('GET /v1/merchants/{merchantId}', one);

    await answer('PATCH /v1/merchants/{merchantId}', one, {
      method: 'PATCH',
      headers: { 'api-key': apiKey },
      body: { merchantName: 'Documented shop, renamed' },
    });
    await answer('PATCH /v1/merchants/{merchantId}', one, {
      method: 'PATCH',
      headers: { 'api-key': apiKey },
      body: {},
    });
    await answer('PATCH /v1/merchants/{merchantId}', unknown, {
      method: 'PATCH',
      headers: { 'api-key': apiKey },
      body: { merchantName: 'Nobody' },
    });
    await answer('PATCH /v1/merchants/{merchantId}', one, { method: 'PATCH', body: { merchantName: 'Nobody' } });

    const settlements = `${one}/settlements`;
    const crypto = `${settlements}/crypto`;
    const asset = usdcAssets(testbed).evm.caip19;
    const added = await answer('POST /v1/merchants/{merchantId}/settlements/crypto', crypto, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'idempotency-key': randomUUID() },
      body: { settlements: [{ asset, destination: newEvmDestination(testbed) }] },
    });
    expect(added.status, added.text).toBe(201);
    const settlementId = added.body.settlements[0].id as string;
    await answer('POST /v1/merchants/{merchantId}/settlements/crypto', crypto, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'idempotency-key': randomUUID() },
      body: { settlements: [{ asset, destination: newEvmDestination(testbed) }] },
    });
    await answer('POST /v1/merchants/{merchantId}/settlements/crypto', crypto, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'idempotency-key': randomUUID() },
      body: { settlements: [{ asset: 'not-an-asset', destination: 'nowhere' }] },
    });
    await answer('POST /v1/merchants/{merchantId}/settlements/crypto', `${unknown}/settlements/crypto`, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'idempotency-key': randomUUID() },
      body: { settlements: [{ asset, destination: newEvmDestination(testbed) }] },
    });
    await answer('POST /v1/merchants/{merchantId}/settlements/crypto', crypto, {
      method: 'POST',
      headers: { 'idempotency-key': randomUUID() },
      body: { settlements: [{ asset, destination: newEvmDestination(testbed) }] },
    });

    await answer('GET /v1/merchants/{merchantId}/settlements', settlements, { headers: { 'api-key': apiKey } });
    await answer('GET /v1/merchants/{merchantId}/settlements', `${unknown}/settlements`, {
      headers: { 'api-key': apiKey },
    });
    await answer('GET /v1/merchants/{merchantId}/settlements', settlements);

    const oneSettlement = `${crypto}/${settlementId}`;
    await answer('PUT /v1/merchants/{merchantId}/settlements/crypto/{id}', oneSettlement, {
      method: 'PUT',
      headers: { 'api-key': apiKey },
      body: { destination: newEvmDestination(testbed) },
    });
    await answer('PUT /v1/merchants/{merchantId}/settlements/crypto/{id}', oneSettlement, {
      method: 'PUT',
      headers: { 'api-key': apiKey },
      body: { destination: 'nowhere' },
    });
    await answer('PUT /v1/merchants/{merchantId}/settlements/crypto/{id}', `${crypto}/crypto_unknown`, {
      method: 'PUT',
      headers: { 'api-key': apiKey },
      body: { destination: newEvmDestination(testbed) },
    });
    await answer('DELETE /v1/merchants/{merchantId}/settlements/crypto/{id}', oneSettlement, {
      method: 'DELETE',
      headers: { 'api-key': apiKey },
    });
    await answer('DELETE /v1/merchants/{merchantId}/settlements/crypto/{id}', oneSettlement, {
      method: 'DELETE',
      headers: { 'api-key': apiKey },
    });

    await answer('DELETE /v1/merchants/{merchantId}', one, { method: 'DELETE' });
    await answer('DELETE /v1/merchants/{merchantId}', one, { method: 'DELETE', headers: { 'api-key': apiKey } });
    await answer('DELETE /v1/merchants/{merchantId}', unknown, { method: 'DELETE', headers: { 'api-key': apiKey } });
  });

  it('answers the payment operations as documented, happy and refused', async () => {
    const paymentId = await newPayment();
    await answer('POST /v1/payments', '/v1/payments', {
      method: 'POST',
      headers: merchantApi(),
      body: { amount: usd('-1'), referenceId: 'negative' },
    });
    await answer('POST /v1/payments', '/v1/payments', {
      method: 'POST',
      headers: { 'merchant-id': merchantId },
      body: { amount: usd('100'), referenceId: 'no-key' },
    });

    const page = `/v1/payments/${paymentId}`;
    const unknown = '/v1/payments/pay_unknown';
    for (const [operation, suffix] of [
      ['GET /v1/payments/{id}', ''],
      ['GET /v1/payments/{id}/status', '/status'],
    ] as const) {
      await answer(operation, `${page}${suffix}`, { headers: merchantApi() });
      await answer(operation, `${unknown}${suffix}`, { headers: merchantApi() });
      await answer(operation, `${page}${suffix}`, { headers: { 'merchant-id': merchantId } });
      await answer(operation, `${page}${suffix}`, { headers: merchantApi({ 'wcp-version': '2026-13-45' }) });
    }

    const cancel = 'POST /v1/payments/{id}/cancel';
    await answer(cancel, `${page}/cancel`, { method: 'POST', headers: { 'merchant-id': merchantId } });
    await answer(cancel, `${unknown}/cancel`, { method: 'POST', headers: merchantApi() });
    const cancelled = await answer(cancel, `${page}/cancel`, { method: 'POST', headers: merchantApi() });
    expect(cancelled.status, cancelled.text).toBe(200);
    await answer(cancel, `${page}/cancel`, { method: 'POST', headers: merchantApi({ 'wcp-version': 'yesterday' }) });

    for (const [operation, path, headers] of [
      ['GET /v1/payments', '/v1/payments', { 'api-key': apiKey }],
      ['GET /v1/merchants/payments', '/v1/merchants/payments', merchantApi()],
    ] as const) {
      // A cancelled payment is listed as `failed` before the preview, which names it `cancelled`.
      const cancelledStatus = version.endsWith('.preview') ? 'cancelled' : 'failed';
      const listed = await answer(operation, `${path}?limit=5&status=${cancelledStatus}`, { headers });
      expect(listed.body.data.map((item: { paymentId: string }) => item.paymentId)).toContain(paymentId);
      expect(listed.status, listed.text).toBe(200);
      await answer(operation, `${path}?limit=0`, { headers });
      await answer(operation, path, { headers: { ...headers, 'api-key': 'sk_not_a_key' } });
    }
    const legacy = 'GET /v1/merchants/{merchant_id}/payments';
    const legacyPath = `/v1/merchants/${merchantId}/payments`;
    const legacyList = await answer(legacy, legacyPath, { headers: { 'x-api-key': apiKey } });
    expect(legacyList.status, legacyList.text).toBe(200);
    await answer(legacy, `${legacyPath}?limit=0`, { headers: { 'x-api-key': apiKey } });
    await answer(legacy, legacyPath);
  });

  it('answers the gateway and the refund as documented, through a paid payment', async () => {
    const paymentId = await newPayment('1250');
    const walletCall = (body?: unknown, headers: Record<string, string> = wallet()) =>
      body === undefined ? { headers } : { method: 'POST', headers, body };
    const base = `/v1/gateway/payment/${paymentId}`;
    const unknown = '/v1/gateway/payment/pay_unknown';
    const noClient = { 'app-id': testbed.walletHeaders['app-id']! };

    await answer('GET /v1/gateway/payment/{id}', base, walletCall());
    await answer('GET /v1/gateway/payment/{id}', unknown, walletCall());
    await answer('GET /v1/gateway/payment/{id}', base, walletCall(undefined, {}));
    await answer('GET /v1/gateway/payment/{id}', base, walletCall(undefined, noClient));
    await answer('GET /v1/gateway/payment/{id}', base, walletCall(undefined, { ...wallet(), 'wcp-version': 'latest' }));

    const account = testbed.evmAccount('alice');
    const solanaAccount = testbed.solanaAccount('alice');
    const options = await answer(
      'POST /v1/gateway/payment/{id}/options',
      `${base}/options?includePaymentInfo=true`,
      walletCall({ accounts: [account, solanaAccount] }),
    );
    expect(options.status, options.text).toBe(200);
    await answer('POST /v1/gateway/payment/{id}/options', `${unknown}/options`, walletCall({ accounts: [account] }));
    await answer('POST /v1/gateway/payment/{id}/options', `${base}/options`, walletCall({ accounts: 'alice' }));
    await answer('POST /v1/gateway/payment/{id}/options', `${base}/options`, walletCall({ accounts: [account] }, {}));

    const assets = usdcAssets(testbed);
    const optionOf = (caip19: string) =>
      options.body.options.find(
        (candidate: { amount: { unit: string } }) => candidate.amount.unit === `caip19/${caip19}`,
      );
    const solanaOption = optionOf(assets.solana.caip19);
    const fetched = await answer(
      'POST /v1/gateway/payment/{id}/fetch',
      `${base}/fetch`,
      walletCall({ optionId: solanaOption.id, data: solanaOption.actions[0].data.data }),
    );
    expect(fetched.status, fetched.text).toBe(200);
    await signSolanaAsWallet(testbed.buyer('alice').solanaSecretKey, fetched.body.actions[0].data.params);
    await answer('POST /v1/gateway/payment/{id}/fetch', `${base}/fetch`, walletCall({ optionId: 42 }));
    await answer('POST /v1/gateway/payment/{id}/fetch', `${unknown}/fetch`, walletCall({ optionId: 'x', data: 'y' }));
    await answer('POST /v1/gateway/payment/{id}/fetch', `${base}/fetch`, walletCall({ optionId: 'x', data: 'y' }, {}));

    const evmOption = optionOf(assets.evm.caip19);
    const signature = await signTypedDataAsWallet(
      testbed.buyer('alice').evmPrivateKey,
      evmOption.actions[0].data.params,
    );
    const confirm = 'POST /v1/gateway/payment/{id}/confirm';
    const confirmation = { optionId: evmOption.id, results: [{ type: 'walletRpc', data: [signature] }] };
    await answer(confirm, `${base}/confirm`, walletCall({ optionId: evmOption.id, results: 'signed' }));
    await answer(confirm, `${unknown}/confirm`, walletCall(confirmation));
    await answer(confirm, `${base}/confirm`, walletCall(confirmation, {}));
    const confirmed = await answer(confirm, `${base}/confirm?maxPollMs=20000`, walletCall(confirmation));
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((await testbed.finalStatus(paymentId)).status).toBe('succeeded');

    const status = 'GET /v1/gateway/payment/{id}/status';
    expect((await answer(status, `${base}/status`, walletCall())).body.status).toBe('succeeded');
    await answer(status, `${unknown}/status`, walletCall());
    await answer(status, `${base}/status`, walletCall(undefined, {}));
    await answer(status, `${base}/status?maxPollMs=forever`, walletCall());
    expect((await answer('GET /v1/gateway/payment/{id}', base, walletCall())).body.buyer).toBeDefined();

    const gatewayCancel = 'POST /v1/gateway/payment/{id}/cancel';
    const open = await newPayment();
    const openBase = `/v1/gateway/payment/${open}`;
    await answer(gatewayCancel, `${openBase}/cancel`, walletCall({}, {}));
    await answer(gatewayCancel, `${unknown}/cancel`, walletCall({}));
    expect((await answer(gatewayCancel, `${openBase}/cancel`, walletCall({}))).status).toBe(200);
    await answer(gatewayCancel, `${base}/cancel`, walletCall({}));

    const refunds = 'POST /v1/refunds';
    const refund = (body: unknown, headers: Record<string, string> = merchantApi()) =>
      answer(refunds, '/v1/refunds', { method: 'POST', headers, body });
    await refund({ paymentId: open });
    await refund({ paymentId: 'pay_unknown' });
    await refund({ paymentId }, { 'api-key': apiKey });
    expect((await refund({ paymentId })).status).toBe(200);
    expect((await refund({ paymentId })).status).toBe(409);
  });

  it('answers a payment that asks for buyer data as documented, its form named in `collectData`', async () => {
    await setPartnerDataThreshold(testbed.server.db, testbed.partner.partnerId, { currency: 'USD', amount: 500n });
    const paymentId = await newPayment('1000');
    const path = `/v1/gateway/payment/${paymentId}`;
    const read = await answer('GET /v1/gateway/payment/{id}', path, { headers: wallet() });
    expect(read.status, read.text).toBe(200);
    const options = await answer('POST /v1/gateway/payment/{id}/options', `${path}/options?includePaymentInfo=true`, {
      method: 'POST',
      headers: wallet(),
      body: { accounts: [testbed.evmAccount('alice')] },
    });
    expect(options.status, options.text).toBe(200);
    expect(options.body.collectData?.fields?.length).toBeGreaterThan(0);
    expect(options.body.options[0].collectData?.fields?.length).toBeGreaterThan(0);
  });

  it('matches the document in every answer, and answered every status below 500 each operation documents', () => {
    expect(mismatches).toEqual([]);
    const unanswered = [...document.operations.keys()].flatMap((operation) =>
      document
        .statuses(operation)
        .filter((status) => status < 500 && !answered.has(`${operation} ${status}`))
        .map((status) => `${operation} ${status}`),
    );
    expect(unanswered).toEqual([]);
  });
});
