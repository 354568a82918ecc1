import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevnetGateway, startDevnetGateway } from '../../wallet/test/support/devnetGateway.ts';
import { evmKeyWallet, solanaKeyWallet } from '../src/keyWallets.ts';
import { browserTransport, type CheckoutSnapshot, createPaymentSession, FINAL_STAGES } from '../src/index.ts';
import { createCheckoutHandler } from '../src/server.ts';
import { type RunningServer, serveFetchHandler } from './support/fetchHandlerServer.ts';
import { getAddress } from 'viem';
import { withDepositTables } from '../../server/src/deposits/depositTables.ts';
import { devnetPlainWallet } from '../../server/test/support/devnetPlainWallet.ts';

let gw: DevnetGateway;
let store: RunningServer;
let checkoutEndpoint: string;
const authorized = new Set<string>();
const plain = devnetPlainWallet(() => gw.devnet);

beforeAll(async () => {
  gw = await startDevnetGateway();
  store = await serveFetchHandler(
    createCheckoutHandler({
      baseUrl: gw.server.url,
      apiKey: gw.partner.apiKey,
      basePath: '/api/checkout',
      authorize: (paymentId) => authorized.has(paymentId),
    }),
  );
  checkoutEndpoint = `${store.url}/api/checkout`;
}, 180_000);

afterAll(async () => {
  await store?.close();
  await gw?.close();
});

async function newStorePayment(): Promise<string> {
  const { paymentId } = await gw.newPayment();
  authorized.add(paymentId);
  return paymentId;
}

function whenStage(session: ReturnType<typeof createPaymentSession>, done: (s: CheckoutSnapshot) => boolean) {
  return new Promise<CheckoutSnapshot>((resolve) => {
    const check = () => {
      const snapshot = session.getSnapshot();
      if (done(snapshot)) {
        unsubscribe();
        resolve(snapshot);
      }
    };
    const unsubscribe = session.subscribe(check);
    check();
  });
}

describe('a payment paid through the checkout runtime and a store’s server route', () => {
  it('pays USDC on an EVM chain with a key wallet, the page holding no credential', async () => {
    const paymentId = await newStorePayment();
    const session = createPaymentSession(paymentId, { transport: browserTransport({ endpoint: checkoutEndpoint }) });
    session.start();
    await whenStage(session, (snapshot) => snapshot.stage === 'connect');
    const buyer = gw.buyer('erin');
    await session.actions.connectWallet(evmKeyWallet({ privateKey: buyer.evmPrivateKey, rpcUrls: gw.rpcUrls }));
    const usdc = session
      .getSnapshot()
      .options.find(
        (option) => option.amount.display?.assetSymbol === 'USDC' && option.account.startsWith(gw.evmChain),
      );
    expect(usdc, JSON.stringify(session.getSnapshot())).toBeDefined();
    session.actions.chooseOption(usdc!.id);
    await session.actions.pay();
    const outcome = await whenStage(session, (snapshot) => FINAL_STAGES.has(snapshot.stage));
    session.stop();
    expect(outcome).toMatchObject({
      stage: 'succeeded',
      error: null,
      paid: { optionAmount: { unit: usdc!.amount.unit } },
    });
    expect(outcome.paid?.txId).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await gw.listed(paymentId)).status).toBe('succeeded');
  });

  it('pays USDC on Solana with a key pair wallet', async () => {
    const paymentId = await newStorePayment();
    const session = createPaymentSession(paymentId, { transport: browserTransport({ endpoint: checkoutEndpoint }) });
    session.start();
    await whenStage(session, (snapshot) => snapshot.stage === 'connect');
    await session.actions.connectWallet(solanaKeyWallet({ secretKey: gw.buyer('erin').solanaSecretKey }));
    const snapshot = session.getSnapshot();
    expect(snapshot.options.length, JSON.stringify(snapshot)).toBeGreaterThan(0);
    expect(snapshot.options.every((option) => option.account.startsWith(`${gw.solanaChain}:`))).toBe(true);
    await session.actions.pay();
    const outcome = await whenStage(session, (next) => FINAL_STAGES.has(next.stage));
    session.stop();
    expect(outcome).toMatchObject({ stage: 'succeeded', error: null });
  });

  it('asks for the rest after a transfer of less than asked to the deposit address, even opened again, and never for the whole', async () => {
    const { paymentId, gatewayUrl } = await gw.newPayment();
    authorized.add(paymentId);
    // The buyer opened the hosted page, which fixed the payment's deposit addresses, and sent from a wallet of its own.
    expect((await fetch(gatewayUrl)).status).toBe(200);
    const usdc = plain.token('USDC');
    const [quote] = await withDepositTables(gw.server.db)
      .selectFrom('evm_deposit_quotes')
      .select(['address', 'amount'])
      .where('payment_id', '=', paymentId)
      .where('asset', '=', usdc.caip19)
      .execute();
    expect(quote?.amount).toBe('10000000');
    const address = getAddress(quote!.address);
    const transport = browserTransport({ endpoint: checkoutEndpoint });
    const session = createPaymentSession(paymentId, { transport });
    session.start();
    await whenStage(session, (snapshot) => snapshot.stage === 'connect');
    await plain.send(address, 6_000_000n);

    const underpaid = await whenStage(session, (snapshot) => snapshot.stage === 'underpaid');
    const rest = `ethereum:${usdc.address}@${plain.chain().chainId}/transfer?address=${address}&uint256=4000000`;
    const usdcAmount = (value: string) => ({
      unit: `caip19/${usdc.caip19}`,
      value,
      display: expect.objectContaining({ assetSymbol: 'USDC', decimals: 6, networkName: plain.chain().name }),
    });
    expect(underpaid.received).toEqual([
      {
        amount: usdcAmount('6000000'),
        expected: usdcAmount('10000000'),
        remaining: usdcAmount('4000000'),
        address,
        uri: rest,
      },
    ]);
    // No wallet is offered: paying the whole now would charge the buyer 16 USDC for a 10 USDC payment.
    await session.actions.connectWallet(
      evmKeyWallet({ privateKey: gw.buyer('erin').evmPrivateKey, rpcUrls: gw.rpcUrls }),
    );
    await session.actions.pay();
    expect(session.getSnapshot()).toMatchObject({ stage: 'underpaid', wallet: null, options: [] });
    const reopened = createPaymentSession(paymentId, { transport });
    reopened.start();
    const first = await whenStage(reopened, (snapshot) => snapshot.stage !== 'loading');
    reopened.stop();
    expect(first).toMatchObject({ stage: 'underpaid', received: underpaid.received });

    await plain.send(address, 4_000_000n);
    const outcome = await whenStage(session, (snapshot) => FINAL_STAGES.has(snapshot.stage));
    session.stop();
    expect(outcome).toMatchObject({ stage: 'succeeded', received: [], paid: { optionAmount: { value: '10000000' } } });
    expect(await plain.balanceOf(address)).toBe(10_000_000n);
  });

  it('the buyer cancels through the route, and the merchant sees it cancelled', async () => {
    const paymentId = await newStorePayment();
    const session = createPaymentSession(paymentId, { transport: browserTransport({ endpoint: checkoutEndpoint }) });
    session.start();
    await whenStage(session, (snapshot) => snapshot.stage === 'connect');
    await session.actions.cancelPayment();
    session.stop();
    expect(session.getSnapshot()).toMatchObject({ stage: 'cancelled', error: null });
    const merchantView = await fetch(`${gw.server.url}/v1/payments/${paymentId}`, {
      headers: { 'api-key': gw.partner.apiKey, 'merchant-id': gw.merchantId },
    });
    expect((await merchantView.json()).status).toBe('cancelled');
  });
});

describe('the store’s checkout route (security)', () => {
  const route = (path: string) => `${checkoutEndpoint}${path}`;

  it('forwards only what a buyer may call: the merchant API, other methods and other paths are refused', async () => {
    const paymentId = await newStorePayment();
    const merchantApi = await fetch(route('/v1/payments'), { headers: { 'merchant-id': gw.merchantId } });
    expect(merchantApi.status).toBe(404);
    expect(await merchantApi.json()).toEqual({ code: 'not_found', message: 'Not found.' });
    const refunds = await fetch(route('/v1/refunds'), { method: 'POST', body: '{}' });
    expect(refunds.status).toBe(404);
    const traversal = await fetch(route(`/v1/gateway/payment/${paymentId}/../../../payments`));
    expect(traversal.status).toBe(404);
    const wrongMethod = await fetch(route(`/v1/gateway/payment/${paymentId}/options`));
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    const outside = await fetch(`${store.url}/v1/gateway/payment/${paymentId}`);
    expect(outside.status).toBe(404);
  });

  it('never lets the key reach the page, and ignores a key the page sends', async () => {
    const paymentId = await newStorePayment();
    const answer = await fetch(route(`/v1/gateway/payment/${paymentId}`), { headers: { 'api-key': 'sk_forged' } });
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(JSON.parse(text)).toMatchObject({ status: 'requires_action', merchant: { name: expect.any(String) } });
    expect(text).not.toContain(gw.partner.apiKey);
    answer.headers.forEach((value) => {
      expect(value).not.toContain(gw.partner.apiKey);
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a payment the store did not authorise, before asking the service', async () => {
    const { paymentId } = await gw.newPayment();
    const answer = await fetch(route(`/v1/gateway/payment/${paymentId}/cancel`), { method: 'POST' });
    expect(answer.status).toBe(403);
    expect((await answer.json()).code).toBe('forbidden');
    expect((await gw.listed(paymentId)).status).toBe('requires_action');
  });

  it('passes on the service’s refusals as they are, and refuses an oversized body', async () => {
    const paymentId = await newStorePayment();
    const badOptions = await fetch(route(`/v1/gateway/payment/${paymentId}/options`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accounts: [] }),
    });
    expect(badOptions.status).toBe(400);
    expect(await badOptions.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    const huge = await fetch(route(`/v1/gateway/payment/${paymentId}/confirm`), {
      method: 'POST',
      body: 'x'.repeat(70 * 1024),
    });
    expect(huge.status).toBe(413);
    expect((await gw.listed(paymentId)).status).toBe('requires_action');
  });

  it('ends the call upstream when the buyer leaves a held status request', async () => {
    let upstreamAborted = false;
    const held = await serveFetchHandler(
      createCheckoutHandler({
        baseUrl: gw.server.url,
        apiKey: gw.partner.apiKey,
        // The service holding a long-poll: it answers only when the call is ended.
        fetch: (_url, init) =>
          new Promise((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => {
              upstreamAborted = true;
              reject(new Error('aborted'));
            });
          }),
      }),
    );
    try {
      const paymentId = await newStorePayment();
      const leaving = new AbortController();
      const request = fetch(`${held.url}/v1/gateway/payment/${paymentId}/status?maxPollMs=25000`, {
        signal: leaving.signal,
      }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(upstreamAborted).toBe(false);
      leaving.abort();
      await request;
      await expect.poll(() => upstreamAborted, { timeout: 5_000 }).toBe(true);
    } finally {
      await held.close();
    }
  });
});
