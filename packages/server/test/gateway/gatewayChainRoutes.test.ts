import { afterAll, beforeAll } from 'vitest';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, type TestPartner, type TestServer } from '../support/testServer.ts';
import { type GatewayTestbed, signTypedDataAsWallet, startGatewayTestbed } from './support/gatewayTestbed.ts';

// Fetch and confirm reach the chains, so their checks run against a service paying on a devnet, shared by both.
let bed: GatewayTestbed;

beforeAll(async () => {
  bed = await startGatewayTestbed({ workers: false });
}, 180_000);

afterAll(async () => {
  await bed?.close();
});

/** The testbed's service; the testbed itself is closed once, after both routes' checks. */
const devnetServer = async (): Promise<TestServer> => ({ ...bed.server, close: async () => {} });

async function optionsFor(server: TestServer, partner: TestPartner, account: string) {
  const merchant = await createMerchant(server, partner.apiKey);
  const { paymentId } = await createPayment(server, partner.apiKey, merchant.id);
  const options = await call(server, `/v1/gateway/payment/${paymentId}/options`, {
    method: 'POST',
    headers: { 'api-key': partner.apiKey },
    body: { accounts: [account] },
  });
  if (options.status !== 200) throw new Error(`no options: ${options.text}`);
  return { paymentId, options: options.body.options as any[] };
}

runCommonRouteTests({
  name: 'POST /v1/gateway/payment/{id}/fetch',
  scope: 'gateway',
  allowApp: true,
  openToAllPartners: true,
  server: devnetServer,
  // Each fetch builds the transfer afresh; the payment stays payable, so every credential check can fetch again.
  request: async (server, partner) => {
    const { paymentId, options } = await optionsFor(server, partner, bed.solanaAccount('erin'));
    const [option] = options;
    return {
      method: 'POST',
      path: `/v1/gateway/payment/${paymentId}/fetch`,
      body: { optionId: option.id, data: option.actions[0].data.data },
    };
  },
});

runCommonRouteTests({
  name: 'POST /v1/gateway/payment/{id}/confirm',
  scope: 'gateway',
  allowApp: true,
  openToAllPartners: true,
  server: devnetServer,
  // Confirmed once here; the same confirm again answers the payment's status, so every credential check can repeat it.
  request: async (server, partner) => {
    const { paymentId, options } = await optionsFor(server, partner, bed.evmAccount('alice'));
    const option = options.find((candidate) => candidate.amount.display.assetSymbol === 'USDC');
    const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, option.actions[0].data.params);
    const body = { optionId: option.id, results: [{ type: 'walletRpc', data: [signature] }] };
    const path = `/v1/gateway/payment/${paymentId}/confirm`;
    const first = await call(server, path, { method: 'POST', headers: { 'api-key': partner.apiKey }, body });
    if (first.status !== 200) throw new Error(`confirm refused: ${first.text}`);
    return { method: 'POST', path, body };
  },
});
