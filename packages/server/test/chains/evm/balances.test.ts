import { type Address, maxUint256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBalances, readPermit2Allowances } from '../../../src/chains/evm/balances.ts';
import { EvmClients } from '../../../src/chains/evm/clients.ts';
import { type EvmTestEnvironment, startEvmTestEnvironment } from './support/evmDevnet.ts';

describe('balance and allowance reads', () => {
  let env: EvmTestEnvironment;

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
  });
  afterAll(() => env?.close());

  /** A client whose HTTP requests are counted, with the JSON-RPC calls each one carried. */
  function countingClient() {
    const requests: unknown[][] = [];
    const clients = new EvmClients({
      onFetchRequest: async (request) => {
        const body = JSON.parse(await request.clone().text()) as unknown;
        requests.push(Array.isArray(body) ? body : [body]);
      },
    });
    return { client: clients.for(env.network), requests };
  }

  it('reads 5 accounts in 4 assets in one HTTP request of 6 calls: the 15 token balances in one multicall, the 5 coin balances', async () => {
    const { client, requests } = countingClient();
    const owners = (['alice', 'bob', 'carol', 'erin', 'dave'] as const).map((name) => env.buyer(name).address);
    const tokens = (['USDC', 'EURC', 'USDT', 'ETH'] as const).map((symbol) => env.token(symbol));

    const balances = await readBalances(client, owners, tokens);

    expect(requests).toHaveLength(1);
    const methods = (requests[0] as { method: string }[]).map((call) => call.method).sort();
    expect(methods).toEqual([
      'eth_call',
      'eth_getBalance',
      'eth_getBalance',
      'eth_getBalance',
      'eth_getBalance',
      'eth_getBalance',
    ]);
    const [alice, bob, carol, erin, dave] = owners as [Address, Address, Address, Address, Address];
    const [usdc, eurc, usdt, eth] = tokens as [
      (typeof tokens)[0],
      (typeof tokens)[0],
      (typeof tokens)[0],
      (typeof tokens)[0],
    ];
    expect(balances.of(carol, usdt)).toBe(10_000_000_000n);
    expect(balances.of(carol, usdc)).toBe(0n);
    expect(balances.of(carol, eth)).toBe(10n ** 18n);
    expect(balances.of(erin, usdc)).toBe(1_000_000_000n);
    expect(balances.of(erin, eurc)).toBe(1_000_000_000n);
    expect(balances.of(erin, eth)).toBe(0n);
    expect(balances.of(bob.toLowerCase(), eurc)).toBe(10_000_000_000n);
    expect(balances.of(alice, eth)).toBeLessThan(100n * 10n ** 18n);
    expect(balances.of(alice, eth)).toBeGreaterThan(99n * 10n ** 18n);
    for (const token of tokens) expect(balances.of(dave, token)).toBe(0n);
    expect(balances.of(alice, eth)).toBe(await env.client.getBalance({ address: alice }));
  });

  it('reads Permit2 allowances of many accounts in one call', async () => {
    const { client, requests } = countingClient();
    const owners = (['alice', 'bob', 'carol'] as const).map((name) => env.buyer(name).address);
    const tokens = (['USDC', 'EURC', 'USDT', 'ETH'] as const).map((symbol) => env.token(symbol));

    const allowances = await readPermit2Allowances(client, owners, tokens);

    expect(requests).toHaveLength(1);
    expect((requests[0] as { method: string }[]).map((call) => call.method)).toEqual(['eth_call']);
    expect(allowances.of(owners[0] as Address, env.token('USDT'))).toBe(maxUint256);
    expect(allowances.of(owners[0] as Address, env.token('USDC'))).toBe(0n);
    expect(allowances.of(owners[1] as Address, env.token('USDT'))).toBe(0n);
    expect(allowances.of(owners[2] as Address, env.token('USDT'))).toBe(0n);
    expect(() => allowances.of(owners[0] as Address, env.token('ETH'))).toThrow(/no amount/);
  });
});
