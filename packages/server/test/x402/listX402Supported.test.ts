import { HTTPFacilitatorClient } from '@x402/core/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant } from '../support/fixtures.ts';
import { call, expectErrorBody, newPartner, startTestServer, type TestServer } from '../support/testServer.ts';
import { startX402Testbed, type X402Testbed } from './support.ts';

let testbed: X402Testbed;

/** The devnet's stablecoins: every token but WETH, which the rate source prices. */
const stablecoins = <T extends { symbol: string }>(tokens: T[]): T[] =>
  tokens.filter((token) => token.symbol !== 'WETH');

beforeAll(async () => {
  testbed = await startX402Testbed();
});

afterAll(async () => {
  await testbed?.close();
});

describe('GET /v1/x402/supported', () => {
  it("lists the exact scheme on each devnet network with the merchant's payTo and the stablecoins, as x402's client reads it", async () => {
    const headers = testbed.headers();
    const client = new HTTPFacilitatorClient({
      url: testbed.facilitatorUrl,
      createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
    });
    const supported = await client.getSupported();
    const { manifest } = testbed.service.devnet;
    expect(supported.kinds.map((kind) => kind.network).sort()).toEqual(
      [...manifest.evm.map((chain) => chain.caip2), manifest.solana.caip2].sort(),
    );
    for (const chain of manifest.evm) {
      const kind = supported.kinds.find((candidate) => candidate.network === chain.caip2);
      expect(kind).toEqual({
        x402Version: 2,
        scheme: 'exact',
        network: chain.caip2,
        extra: {
          // The merchant's own address, the same on every EVM network.
          payTo: testbed.payTo,
          // Every ERC-20 stablecoin (not WETH, priced by the rate source): an EIP-3009 token either way, with its
          // EIP-712 domain; the others (USDS, with EIP-2612, among them) by Permit2.
          assets: stablecoins(chain.tokens).map((token) =>
            token.method === 'eip3009'
              ? {
                  asset: token.address,
                  symbol: token.symbol,
                  decimals: token.decimals,
                  peggedTo: token.symbol === 'EURC' ? 'EUR' : 'USD',
                  name: expect.any(String),
                  version: '2',
                  transferMethods: ['eip3009', 'permit2'],
                }
              : {
                  asset: token.address,
                  symbol: token.symbol,
                  decimals: token.decimals,
                  peggedTo: 'USD',
                  transferMethods: ['permit2'],
                },
          ),
        },
      });
    }
    const solanaCollector = testbed.service.services.solana.collector.address;
    // On Solana the merchant's own owner, not the collector, which pays the fee.
    const solanaPayTo = testbed.service.services.solana.collector.merchantOwner(testbed.merchantId);
    expect(solanaPayTo).not.toBe(solanaCollector);
    expect(supported.kinds.find((kind) => kind.network === manifest.solana.caip2)).toEqual({
      x402Version: 2,
      scheme: 'exact',
      network: manifest.solana.caip2,
      extra: {
        payTo: solanaPayTo,
        feePayer: solanaCollector,
        assets: [{ asset: manifest.solana.tokens[0]?.address, symbol: 'USDC', decimals: 6, peggedTo: 'USD' }],
      },
    });
    expect(supported.signers).toEqual({ 'eip155:*': [testbed.collector], 'solana:*': [solanaCollector] });
    expect(supported.extensions).toEqual([]);
  });

  it("answers 401 without Merchant-Id (the payTo is the merchant's) and 404 for another partner's merchant", async () => {
    const missing = await call(testbed.service.server, '/v1/x402/supported', {
      headers: { 'api-key': testbed.x402Key },
    });
    expect([missing.status, expectErrorBody(missing).code]).toEqual([401, 'missing_merchant_id']);
    const other = await newPartner(testbed.service.server.db, 'Another x402 partner');
    const notTheirs = await call(testbed.service.server, '/v1/x402/supported', {
      headers: testbed.headers(undefined, other.apiKey),
    });
    expect([notTheirs.status, expectErrorBody(notTheirs).code]).toEqual([404, 'merchant_not_found']);
  });

  it('answers 503 where the service has no chain services', async () => {
    const plain = await startTestServer();
    try {
      const partner = await newPartner(plain.db);
      const merchant = await createMerchant(plain, partner.apiKey);
      const answer = await call(plain, '/v1/x402/supported', {
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchant.id },
      });
      expect([answer.status, expectErrorBody(answer).code]).toEqual([503, 'service_unavailable']);
    } finally {
      await plain.close();
    }
  });
});

runCommonRouteTests({
  name: 'GET /v1/x402/supported',
  scope: 'x402',
  ownedResource: true,
  // The testbed's service; the testbed itself is closed once, after every check.
  server: async (): Promise<TestServer> => ({ ...testbed.service.server, close: async () => {} }),
  request: async (server, partner) => {
    const merchant = await createMerchant(server, partner.apiKey);
    return { method: 'GET', path: '/v1/x402/supported', headers: { 'merchant-id': merchant.id } };
  },
});
