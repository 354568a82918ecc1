import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINNET_NETWORKS } from '../../src/chains/mainnets.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { call, expectErrorBody, startTestServer, type TestServer } from '../support/testServer.ts';

describe('GET /v1/networks', () => {
  let server: TestServer;
  const base = MAINNET_NETWORKS.find((network) => network.caip2 === 'eip155:8453')!;
  const solana = MAINNET_NETWORKS.find((network) => network.namespace === 'solana')!;
  const bsc = MAINNET_NETWORKS.find((network) => network.caip2 === 'eip155:56')!;
  // A token paid by EIP-2612 permit, as a CHAINS file may list one.
  const usds = {
    caip19: 'eip155:8453/erc20:0x00000000000000000000000000000000000005d5',
    chain: 'eip155:8453',
    symbol: 'USDS',
    name: 'USDS Stablecoin',
    decimals: 18,
    address: '0x00000000000000000000000000000000000005d5',
    method: 'eip2612' as const,
    peggedTo: 'USD',
  };

  beforeAll(async () => {
    // Base and BNB Smart Chain with a node (Base's URL carries a provider key that must never be shown), Solana
    // without one.
    const chains = new ChainRegistry([
      { ...base, tokens: [...base.tokens, usds], rpcUrl: 'https://base.example/v2/provider-secret-key' },
      { ...solana, rpcUrl: undefined },
      { ...bsc, rpcUrl: 'https://bsc.example' },
    ]);
    server = await startTestServer({ context: { chains } });
  });
  afterAll(() => server.close());

  it('lists the networks this deployment follows and their tokens, without credentials and without RPC URLs', async () => {
    const result = await call(server, '/v1/networks');
    expect(result.status, result.text).toBe(200);
    expect(result.body.networks.map((network: { id: string }) => network.id)).toEqual(['eip155:8453', 'eip155:56']);
    const [listed] = result.body.networks;
    expect(listed).toMatchObject({ id: 'eip155:8453', name: base.name, confirmations: base.confirmations });
    expect(listed.tokens).toContainEqual({
      asset: 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      symbol: 'USDC',
      name: 'USD Coin',
      decimals: 6,
      method: 'eip3009',
      peggedTo: 'USD',
    });
    expect(listed.tokens.find((token: { symbol: string }) => token.symbol === 'USDT').method).toBe('permit2');
    // WETH is priced by the rate source, so it names no peg.
    expect(listed.tokens.find((token: { symbol: string }) => token.symbol === 'WETH')).toEqual({
      asset: 'eip155:8453/erc20:0x4200000000000000000000000000000000000006',
      symbol: 'WETH',
      name: 'Wrapped Ether',
      decimals: 18,
      method: 'permit2',
    });
    const bscListed = result.body.networks[1];
    expect(bscListed).toMatchObject({ id: 'eip155:56', name: 'BNB Smart Chain', confirmations: 15 });
    expect(
      bscListed.tokens.map((token: { symbol: string; decimals: number; method: string }) => [
        token.symbol,
        token.decimals,
        token.method,
      ]),
    ).toEqual([
      ['USDC', 18, 'permit2'],
      ['USDT', 18, 'permit2'],
      ['AUSD', 6, 'eip3009'],
    ]);
    expect(listed.tokens).toContainEqual({
      asset: usds.caip19,
      symbol: 'USDS',
      name: 'USDS Stablecoin',
      decimals: 18,
      method: 'eip2612',
      peggedTo: 'USD',
    });
    expect(result.text).not.toContain('provider-secret-key');
    expect(result.text).not.toContain('rpcUrl');
    expect(result.headers.get('pay-version')).toBe('2026-02-18');
  });

  it('answers a method it does not take with 405', async () => {
    const result = await call(server, '/v1/networks', { method: 'POST', body: {} });
    expect([result.status, expectErrorBody(result).code, result.headers.get('allow')]).toEqual([
      405,
      'method_not_allowed',
      'GET, HEAD',
    ]);
  });
});
