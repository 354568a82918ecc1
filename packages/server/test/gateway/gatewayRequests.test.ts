import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';
import { type GatewayTestbed, signTypedDataAsWallet, startGatewayTestbed } from './support/gatewayTestbed.ts';

// An account on a chain this server does not pay on: the options route answers without touching any chain.
const UNSUPPORTED_ACCOUNT = 'eip155:999999:0x1111111111111111111111111111111111111111';

describe('gateway requests, without chains', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  const gateway = (paymentId: string, suffix: string, body?: unknown) =>
    call(
      server,
      `/v1/gateway/payment/${paymentId}${suffix}`,
      body === undefined
        ? { headers: { 'api-key': partner.apiKey } }
        : { method: 'POST', headers: { 'api-key': partner.apiKey }, body },
    );
  const newPayment = async () => (await createPayment(server, partner.apiKey, merchantId)).paymentId;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server.close());

  it('answers a payment that does not exist with 404 payment_not_found on every gateway route', async () => {
    const missing = 'pay_01JZZZZZZZZZZZZZZZZZZZZZZZ';
    const requests: [string, unknown][] = [
      ['', undefined],
      ['/options', { accounts: [UNSUPPORTED_ACCOUNT] }],
      ['/fetch', { optionId: 'opt_missing', data: 'x' }],
      ['/confirm', { optionId: 'opt_missing', results: [] }],
      ['/status', undefined],
      ['/status?maxPollMs=500', undefined],
      ['/cancel', {}],
    ];
    for (const [suffix, body] of requests) {
      const result = await gateway(missing, suffix, body);
      expect([result.status, expectErrorBody(result).code], suffix).toEqual([404, 'payment_not_found']);
    }
  });

  it('answers a held status request as soon as a partial transfer is recorded, though the status stays the same', async () => {
    const paymentId = await newPayment();
    const waiting = server.ctx.statusWaiter.waitingCount();
    const held = gateway(paymentId, '/status?maxPollMs=25000');
    await expect.poll(() => server.ctx.statusWaiter.waitingCount()).toBe(waiting + 1);
    const exceptions = [
      {
        id: 'exc_partial',
        type: 'underpaid',
        network: 'eip155:8453',
        asset: 'eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
        amount: '400000',
        expected: '1000000',
        txHash: '0xabc',
        from: 'eip155:8453:0x0000000000000000000000000000000000000001',
        at: new Date().toISOString(),
      },
    ];
    await sql`
      WITH written AS (UPDATE payments SET exceptions = ${JSON.stringify(exceptions)}::jsonb WHERE id = ${paymentId} RETURNING id)
      SELECT pg_notify('payment_status', id) FROM written`.execute(server.db);
    // Woken by the notification, not by the end of its hold.
    await expect.poll(() => server.ctx.statusWaiter.waitingCount(), { timeout: 5_000 }).toBe(waiting);
    expect((await held).body).toMatchObject({ status: 'requires_action', isFinal: false });
  });

  it('takes refresh: null as no refresh, and ignores fields it does not know', async () => {
    const paymentId = await newPayment();
    for (const body of [
      { accounts: [UNSUPPORTED_ACCOUNT], refresh: null },
      { accounts: [UNSUPPORTED_ACCOUNT], refresh: ['opt_old'] },
      { accounts: [UNSUPPORTED_ACCOUNT], refresh: null, excludeFromRelayer: true, wallet: { name: 'Any', v: 2 } },
    ]) {
      const result = await gateway(paymentId, '/options?includePaymentInfo=true', body);
      expect(result.status, result.text).toBe(200);
      expect(result.body).toMatchObject({
        options: [],
        collectData: null,
        info: { status: 'requires_action' },
        paymentInfo: { status: 'requires_action' },
      });
    }
  });

  it('still refuses a known field of the wrong type with 400 params_validation naming it', async () => {
    const paymentId = await newPayment();
    const refusals: [string, unknown, string][] = [
      ['/options', { accounts: UNSUPPORTED_ACCOUNT }, 'accounts'],
      ['/options', { accounts: [UNSUPPORTED_ACCOUNT], refresh: 'opt_old' }, 'refresh'],
      ['/options', { accounts: [UNSUPPORTED_ACCOUNT], refresh: [7] }, 'refresh.0'],
      ['/options', { refresh: null, excludeFromRelayer: true }, 'accounts'],
      ['/fetch', { optionId: 'opt_x', data: 7 }, 'data'],
      ['/confirm', { optionId: 7, results: [] }, 'optionId'],
      ['/confirm', { optionId: 'opt_x', results: [{ type: 'walletRpc', data: '0x00' }] }, 'results.0.data'],
      ['/confirm', { optionId: 'opt_x', results: [], collectedData: 'yes' }, 'collectedData'],
      ['/confirm', { optionId: 'opt_x', results: [], collectedData: { fields: null } }, 'collectedData.fields'],
    ];
    for (const [suffix, body, field] of refusals) {
      const result = await gateway(paymentId, suffix, body);
      expect(result.status, `${suffix} ${JSON.stringify(body)}: ${result.text}`).toBe(400);
      const error = expectErrorBody(result);
      expect(error.code).toBe('params_validation');
      expect(error.issues?.map((issue) => issue.field)).toContain(field);
    }
    expect((await gateway(paymentId, '/status')).body.status).toBe('requires_action');
  });
});

describe('gateway requests on the devnet', () => {
  let bed: GatewayTestbed;

  beforeAll(async () => {
    bed = await startGatewayTestbed();
  }, 180_000);
  afterAll(async () => {
    await bed?.close();
  });

  it('pays a confirm carrying fields a wallet SDK sends that the service does not know, and collectedData: null', async () => {
    const { paymentId } = await bed.newPayment();
    const options = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('alice')], refresh: null });
    expect(options.status, options.text).toBe(200);
    const option = options.body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, option.actions[0].data.params);

    const confirmed = await bed.gateway(paymentId, '/confirm?maxPollMs=20000', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signature], chainId: bed.evmChain() }],
      collectedData: null,
      excludeFromRelayer: true,
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(await bed.finalStatus(paymentId)).toMatchObject({ status: 'succeeded' });
    // Only what the service knows is kept, so the same confirm without the unknown fields is the same confirm.
    const stored = await bed.server.db
      .selectFrom('payment_confirmations')
      .select('results')
      .where('payment_id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(stored.results).toEqual([{ type: 'walletRpc', data: [signature] }]);
    const repeated = await bed.gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    expect([repeated.status, repeated.body.status]).toEqual([200, 'succeeded']);
    expect(
      await bed.server.db.selectFrom('evm_transactions').select('id').where('payment_id', '=', paymentId).execute(),
    ).toHaveLength(1);
  });
});
