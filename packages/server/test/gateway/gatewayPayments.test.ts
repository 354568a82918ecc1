import type { Devnet } from '@paygate/devnet';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/partners/partners.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { ManualClock } from '../support/manualClock.ts';
import { signSolanaAsWallet, signTypedDataAsWallet } from './support/gatewayTestbed.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { call, expectErrorBody, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';

describe('gateway payments on the devnet', () => {
  let testService: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let walletHeaders: Record<string, string>;
  const clock = new ManualClock();

  const buyer = (name: string) => {
    const found = devnet.manifest.buyers.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no devnet buyer ${name}`);
    return found;
  };
  const evmChain = () => devnet.manifest.evm[0]!.caip2;
  const evmAccount = (name: string) => `${evmChain()}:${buyer(name).evmAddress}`;
  const solanaAccount = (name: string) => `${devnet.manifest.solana.caip2}:${buyer(name).solanaAddress}`;
  const gateway = (paymentId: string, suffix: string, body?: unknown, headers = walletHeaders) =>
    call(
      server,
      `/v1/gateway/payment/${paymentId}${suffix}`,
      body === undefined ? { headers } : { method: 'POST', headers, body },
    );

  beforeAll(async () => {
    testService = await startDevnetService({ prices: { 'EURC/USD': '1.087' }, clock });
    ({ devnet, server } = testService);
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
    const app = await createApp(server.db, partner.partnerId, 'Test Wallet', 'https://wallet.example/icon.png');
    walletHeaders = { 'app-id': app.appId, 'client-id': 'device-1' };
  }, 120_000);

  afterAll(async () => {
    await testService?.close();
  });

  const newPayment = () => createPayment(server, partner.apiKey, merchantId);

  async function listed(paymentId: string) {
    const list = await call(server, '/v1/merchants/payments?limit=200', {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
    });
    expect(list.status, list.text).toBe(200);
    return list.body.data.find((item: { paymentId: string }) => item.paymentId === paymentId);
  }

  it('shows the payment for display', async () => {
    const { paymentId, expiresAt } = await newPayment();
    const shown = await gateway(paymentId, '');
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body).toEqual({
      status: 'requires_action',
      amount: {
        unit: 'iso4217/USD',
        value: '1000',
        display: { assetSymbol: '$', assetName: 'US Dollar', decimals: 2 },
      },
      expiresAt,
      merchant: { name: 'Corner Shop', iconUrl: null },
      version: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
    });
  });

  it('offers each token the account holds enough of: pegged without a quote end, priced with one', async () => {
    const { paymentId } = await newPayment();
    const result = await gateway(paymentId, '/options?includePaymentInfo=true', {
      accounts: [evmAccount('alice'), 'cosmos:hub-4:cosmos1abc'],
    });
    expect(result.status, result.text).toBe(200);
    const bySymbol = Object.fromEntries(
      result.body.options.map((option: any) => [option.amount.display.assetSymbol, option]),
    );
    // No ETH nor WETH: this file's price table has no price for them.
    expect(Object.keys(bySymbol).sort()).toEqual(['EURC', 'USDC', 'USDS', 'USDT']);
    expect(bySymbol.USDC).toMatchObject({
      account: evmAccount('alice'),
      amount: { value: '10000000' },
      expiresAt: null,
      collectData: null,
    });
    expect(bySymbol.USDC.actions).toHaveLength(1);
    // USDS, pegged at par, in its 18 decimals; one permit to sign.
    expect(bySymbol.USDS).toMatchObject({ amount: { value: '10000000000000000000' }, expiresAt: null });
    expect(bySymbol.USDS.actions.map((action: any) => action.data.method)).toEqual(['eth_signTypedData_v4']);
    expect(bySymbol.USDC.actions[0]).toMatchObject({
      type: 'walletRpc',
      data: { chain_id: evmChain(), method: 'eth_signTypedData_v4' },
    });
    // 10.00 USD at 1.087 USD per EURC, rounded up to the minor unit.
    expect(bySymbol.EURC.amount.value).toBe('9199633');
    expect(bySymbol.EURC.expiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000));
    // Under `info`, as WalletConnect Pay's document names it, and under `paymentInfo`, as earlier answers did.
    expect(result.body.info).toMatchObject({ status: 'requires_action', amount: { value: '1000' } });
    expect(result.body.paymentInfo).toEqual(result.body.info);
  });

  it("names the partner as the buyer's wallet when the partner's own backend confirms with its API key", async () => {
    const { paymentId } = await newPayment();
    const keyHeaders = { 'api-key': partner.apiKey };
    const { body } = await gateway(paymentId, '/options', { accounts: [evmAccount('bob')] }, keyHeaders);
    const option = body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    const signature = await signTypedDataAsWallet(buyer('bob').evmPrivateKey, option.actions[0].data.params);
    const confirmed = await gateway(
      paymentId,
      '/confirm',
      { optionId: option.id, results: [{ type: 'walletRpc', data: [signature] }] },
      keyHeaders,
    );
    expect(confirmed.status, confirmed.text).toBe(200);
    const shown = await gateway(paymentId, '', undefined, keyHeaders);
    expect(shown.body.buyer).toEqual({ accountCaip10: evmAccount('bob'), accountProviderName: 'Test partner' });
  });

  it('gives a buyer with no balance no options, ignores unknown chains and refuses malformed accounts', async () => {
    const { paymentId } = await newPayment();
    const none = await gateway(paymentId, '/options', {
      accounts: [evmAccount('dave'), solanaAccount('dave'), 'eip155:999999:0x1111111111111111111111111111111111111111'],
    });
    expect(none.status, none.text).toBe(200);
    expect(none.body.options).toEqual([]);
    const malformed = await gateway(paymentId, '/options', {
      accounts: [evmAccount('alice'), 'eip155:1:not-an-address'],
    });
    expect(malformed.status).toBe(400);
    expect(expectErrorBody(malformed)).toMatchObject({ code: 'params_validation', issues: [{ field: 'accounts.1' }] });
  });

  it('answers 502 bad_gateway when no token can be priced in the payment currency, leaving the payment payable', async () => {
    // The price table has no GBP rate, and no offered token is pegged to GBP.
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId, {
      amount: { unit: 'iso4217/GBP', value: '1000' },
    });
    const result = await gateway(paymentId, '/options', { accounts: [evmAccount('alice'), solanaAccount('alice')] });
    expect([result.status, expectErrorBody(result).code]).toEqual([502, 'bad_gateway']);
    expect((await gateway(paymentId, '/status')).body.status).toBe('requires_action');
  });

  it('takes an EIP-3009 USDC payment to succeeded, with buyer, amount and transaction in the merchant list', async () => {
    const { paymentId } = await newPayment();
    const { body } = await gateway(paymentId, '/options', { accounts: [evmAccount('alice')] });
    const option = body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    const signature = await signTypedDataAsWallet(buyer('alice').evmPrivateKey, option.actions[0].data.params);

    const confirmed = await gateway(paymentId, '/confirm?maxPollMs=20000', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({
      status: 'succeeded',
      isFinal: true,
      info: { optionAmount: { value: '10000000' } },
    });
    expect(confirmed.body.info.txId).toMatch(/^0x[0-9a-f]{64}$/);

    const again = await gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    expect(again.body).toMatchObject({ status: 'succeeded', info: { txId: confirmed.body.info.txId } });
    const relayed = await server.db
      .selectFrom('evm_transactions')
      .select('id')
      .where('payment_id', '=', paymentId)
      .execute();
    expect(relayed).toHaveLength(1);

    expect(await listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: {
        accountCaip10: evmAccount('alice'),
        accountProviderName: 'Test Wallet',
        accountProviderIcon: 'https://wallet.example/icon.png',
      },
      tokenAmount: {
        unit: `caip19/${option.amount.unit.slice('caip19/'.length)}`,
        value: '10000000',
        display: { assetSymbol: 'USDC' },
      },
      transaction: { networkId: evmChain().split(':')[1], hash: confirmed.body.info.txId },
    });
  });

  it('refuses misaligned results and a wrong signature, leaving the payment payable', async () => {
    const { paymentId } = await newPayment();
    const { body } = await gateway(paymentId, '/options', { accounts: [evmAccount('bob')] });
    const option = body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    const signature = await signTypedDataAsWallet(buyer('bob').evmPrivateKey, option.actions[0].data.params);

    const misaligned = await gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: [
        { type: 'walletRpc', data: [signature] },
        { type: 'walletRpc', data: ['0x00'] },
      ],
    });
    expect(misaligned.status).toBe(400);
    expect(expectErrorBody(misaligned).code).toBe('params_validation');

    const forged = await privateKeyToAccount(generatePrivateKey()).signTypedData(
      JSON.parse(JSON.parse(option.actions[0].data.params)[1]),
    );
    const wrong = await gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [forged] }],
    });
    expect(wrong.status).toBe(400);
    expect(expectErrorBody(wrong)).toMatchObject({ code: 'invalid_params', details: { reason: 'invalid_signature' } });

    expect((await gateway(paymentId, '/status')).body).toMatchObject({ status: 'requires_action', isFinal: false });
    const paid = await gateway(paymentId, '/confirm?maxPollMs=20000', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    expect(paid.body.status).toBe('succeeded');
  });

  it('lets one of two racing confirms win; the other is refused as invalid_state', async () => {
    const { paymentId } = await newPayment();
    const { body } = await gateway(paymentId, '/options', { accounts: [evmAccount('alice'), evmAccount('bob')] });
    const usdc = body.options.filter((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    const [aliceOption, bobOption] = [evmAccount('alice'), evmAccount('bob')].map((account) =>
      usdc.find((option: any) => option.account === account),
    );
    const [aliceSignature, bobSignature] = await Promise.all([
      signTypedDataAsWallet(buyer('alice').evmPrivateKey, aliceOption.actions[0].data.params),
      signTypedDataAsWallet(buyer('bob').evmPrivateKey, bobOption.actions[0].data.params),
    ]);
    const results = await Promise.all([
      gateway(paymentId, '/confirm', {
        optionId: aliceOption.id,
        results: [{ type: 'walletRpc', data: [aliceSignature] }],
      }),
      gateway(paymentId, '/confirm', {
        optionId: bobOption.id,
        results: [{ type: 'walletRpc', data: [bobSignature] }],
      }),
    ]);
    const statuses = results.map((result) => result.status).sort();
    expect(statuses, results.map((result) => result.text).join('\n')).toEqual([200, 400]);
    expect(expectErrorBody(results.find((result) => result.status === 400)!).code).toBe('invalid_state');
    const final = await gateway(paymentId, '/status?maxPollMs=20000');
    expect(
      final.body.status === 'processing'
        ? (await gateway(paymentId, '/status?maxPollMs=20000')).body.status
        : final.body.status,
    ).toBe('succeeded');
    expect(
      await server.db.selectFrom('evm_transactions').select('id').where('payment_id', '=', paymentId).execute(),
    ).toHaveLength(1);
  });

  it('takes a Solana USDC payment to succeeded through build, fetch and confirm, refusing an altered transaction', async () => {
    const { paymentId } = await newPayment();
    const { body } = await gateway(paymentId, '/options', { accounts: [solanaAccount('erin')] });
    expect(body.options).toHaveLength(1);
    const [option] = body.options;
    expect(option.actions).toEqual([{ type: 'build', data: { data: expect.any(String) } }]);
    const fetched = await gateway(paymentId, '/fetch', { optionId: option.id, data: option.actions[0].data.data });
    expect(fetched.status, fetched.text).toBe(200);
    expect(fetched.body.actions).toHaveLength(1);
    expect(fetched.body.actions[0].data).toMatchObject({
      chain_id: devnet.manifest.solana.caip2,
      method: 'solana_signTransaction',
    });
    const params = fetched.body.actions[0].data.params;

    // Signed by someone else: the buyer's slot holds a signature that does not verify.
    const altered = await signSolanaAsWallet(buyer('bob').solanaSecretKey, params).catch(() => null);
    const signedByErin = await signSolanaAsWallet(buyer('erin').solanaSecretKey, params);
    const tampered = Buffer.from(signedByErin, 'base64');
    tampered.writeUInt8((tampered.at(-1) as number) ^ 1, tampered.length - 1);
    for (const bad of [altered, tampered.toString('base64')].filter((value): value is string => value !== null)) {
      const refused = await gateway(paymentId, '/confirm', {
        optionId: option.id,
        results: [{ type: 'walletRpc', data: [bad] }],
      });
      expect(refused.status, refused.text).toBe(400);
      expect(expectErrorBody(refused).code).toBe('invalid_params');
    }
    expect((await gateway(paymentId, '/status')).body.status).toBe('requires_action');

    const confirmed = await gateway(paymentId, '/confirm?maxPollMs=25000', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signedByErin] }],
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const status =
      confirmed.body.status === 'succeeded'
        ? confirmed.body
        : (await gateway(paymentId, '/status?maxPollMs=25000')).body;
    expect(status).toMatchObject({ status: 'succeeded', isFinal: true, info: { optionAmount: { value: '10000000' } } });
    expect(await listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: { accountCaip10: solanaAccount('erin'), accountProviderName: 'Test Wallet' },
      tokenAmount: { value: '10000000', display: { assetSymbol: 'USDC' } },
      transaction: { hash: status.info.txId },
    });
  });

  it('lets the buyer decline, and refuses further payment as invalid_state', async () => {
    const { paymentId } = await newPayment();
    const declined = await gateway(paymentId, '/cancel', {});
    const { updated_at } = await server.db
      .selectFrom('payments')
      .select('updated_at')
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(declined.body).toEqual({
      status: 'cancelled',
      isFinal: true,
      info: null,
      paymentId,
      cancelledReason: 'cancelled_by_user',
      cancelledAt: updated_at.toISOString(),
    });
    const again = await gateway(paymentId, '/cancel', {});
    expect([again.status, again.body]).toEqual([200, declined.body]);
    const options = await gateway(paymentId, '/options', { accounts: [evmAccount('alice')] });
    expect(options.status).toBe(400);
    expect(expectErrorBody(options).code).toBe('invalid_state');
  });

  it('answers 409 quote_expired for a priced option after its quote ended, leaving the payment payable', async () => {
    const { paymentId } = await newPayment();
    const { body } = await gateway(paymentId, '/options', { accounts: [evmAccount('alice')] });
    const eurc = body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'EURC');
    const signature = await signTypedDataAsWallet(buyer('alice').evmPrivateKey, eurc.actions[0].data.params);
    const quoteLeftMs = eurc.expiresAt * 1000 - clock.now().getTime();
    clock.advance(quoteLeftMs + 1000);
    try {
      const late = await gateway(paymentId, '/confirm', {
        optionId: eurc.id,
        results: [{ type: 'walletRpc', data: [signature] }],
      });
      expect(late.status, late.text).toBe(409);
      expect(expectErrorBody(late).code).toBe('quote_expired');
      expect((await gateway(paymentId, '/status')).body.status).toBe('requires_action');
    } finally {
      clock.advance(-(quoteLeftMs + 1000));
    }
  });

  it('answers 410 payment_expired once the payment expired', async () => {
    const { paymentId } = await newPayment();
    const { body } = await gateway(paymentId, '/options', { accounts: [evmAccount('alice')] });
    const option = body.options[0];
    clock.advance(3 * 60 * 60_000);
    try {
      const options = await gateway(paymentId, '/options', { accounts: [evmAccount('alice')] });
      expect(options.status).toBe(410);
      expect(expectErrorBody(options).code).toBe('payment_expired');
      const confirm = await gateway(paymentId, '/confirm', {
        optionId: option.id,
        results: [{ type: 'walletRpc', data: ['0x00'] }],
      });
      expect(confirm.status).toBe(410);
      expect((await gateway(paymentId, '/status')).body).toMatchObject({ status: 'expired', isFinal: true });
    } finally {
      clock.advance(-3 * 60 * 60_000);
    }
  });
});
