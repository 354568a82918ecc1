import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevnetGateway, startDevnetGateway } from '../../wallet/test/support/devnetGateway.ts';
import { evmKeyWallet } from '../src/keyWallets.ts';
import { browserTransport, createPaymentSession, FINAL_STAGES } from '../src/index.ts';
import { createCheckoutHandler, nodeListener } from '../src/server.ts';

let gw: DevnetGateway;

beforeAll(async () => {
  gw = await startDevnetGateway();
}, 180_000);

afterAll(async () => {
  await gw?.close();
});

interface Mounted {
  url: string;
  close(): Promise<void>;
}

/** The store's route in Express, mounted under its path, with a JSON body parser for the store's other routes. */
async function inExpress(): Promise<Mounted> {
  const app = express();
  const checkout = nodeListener(
    createCheckoutHandler({ baseUrl: gw.server.url, apiKey: gw.partner.apiKey, basePath: '/api/checkout' }),
  );
  app.use('/api/checkout', (request, response) => void checkout(request, response));
  app.use(express.json());
  app.post('/orders', (request, response) => response.json({ received: request.body }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The store's route in Fastify: the reply handed over to the Node listener. */
async function inFastify(): Promise<Mounted> {
  const app = Fastify();
  const checkout = nodeListener(
    createCheckoutHandler({ baseUrl: gw.server.url, apiKey: gw.partner.apiKey, basePath: '/api/checkout' }),
  );
  // Fastify reads JSON bodies itself; the route takes them raw so the listener reads the stream.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  app.all('/api/checkout/*', (request, reply) => {
    reply.hijack();
    return checkout(request.raw, reply.raw);
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

describe.each([
  ['Express', inExpress],
  ['Fastify', inFastify],
] as const)('the store route mounted in %s', (_name, mount) => {
  let store: Mounted;

  beforeAll(async () => {
    store = await mount();
  });

  afterAll(async () => {
    await store?.close();
  });

  it('pays a devnet payment through it, and still refuses what a buyer may not call', async () => {
    const { paymentId } = await gw.newPayment();
    const session = createPaymentSession(paymentId, {
      transport: browserTransport({ endpoint: `${store.url}/api/checkout` }),
    });
    const reached = (done: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => done() && resolve();
        session.subscribe(check);
        check();
      });
    session.start();
    await reached(() => session.getSnapshot().stage === 'connect');
    const buyer = gw.buyer('erin');
    await session.actions.connectWallet(evmKeyWallet({ privateKey: buyer.evmPrivateKey, rpcUrls: gw.rpcUrls }), {
      networks: [gw.evmChain],
    });
    const usdc = session.getSnapshot().options.find((option) => option.amount.display?.assetSymbol === 'USDC');
    expect(usdc, JSON.stringify(session.getSnapshot().error)).toBeDefined();
    session.actions.chooseOption(usdc!.id);
    await session.actions.pay();
    await reached(() => FINAL_STAGES.has(session.getSnapshot().stage));
    session.stop();
    expect(session.getSnapshot()).toMatchObject({ stage: 'succeeded', error: null });
    expect((await gw.listed(paymentId)).status).toBe('succeeded');

    const merchantApi = await fetch(`${store.url}/api/checkout/v1/payments`);
    expect(merchantApi.status).toBe(404);
    expect((await merchantApi.json()).code).toBe('not_found');
  });
});
