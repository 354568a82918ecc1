import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoinbasePriceSource } from '../../src/chains/prices/coinbasePriceSource.ts';
import { FixedPriceSource } from '../../src/chains/prices/fixedPriceSource.ts';
import { quoteTokenAmount } from '../../src/chains/prices/priceSource.ts';
import { ChainRegistry, type NetworkInfo, type TokenInfo } from '../../src/chains/registry.ts';
import { MAINNET_NETWORKS } from '../../src/chains/mainnets.ts';
import { acceptedOptions } from '../../src/checkout/acceptedOptions.ts';

const preset = (caip2: string) => MAINNET_NETWORKS.find((network) => network.caip2 === caip2)!;
const nativeToken = (chain: string, symbol: string, decimals: number, slip44: number): TokenInfo => ({
  caip19: `${chain}/slip44:${slip44}`,
  chain,
  symbol,
  name: symbol,
  decimals,
  address: '',
  method: 'native',
});
const base = preset('eip155:8453');
const solana = preset('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
const networks: NetworkInfo[] = [
  { ...base, rpcUrl: 'http://127.0.0.1:1', tokens: [...base.tokens, nativeToken(base.caip2, 'ETH', 18, 60)] },
  // Without a node to read, the gateway offers nothing on a network.
  preset('eip155:1'),
  // The preset's SOL has no gateway payment method.
  { ...solana, rpcUrl: 'http://127.0.0.1:1' },
];
const chains = new ChainRegistry(networks);
const usd10 = { fiat_currency: 'USD', fiat_value: '1000' };

describe('acceptedOptions: what a payment can be paid with before any account is known', () => {
  it("lists each token a gateway method pays with, on networks with a node, at the gateway's quote", async () => {
    const prices = new FixedPriceSource({ 'ETH/USD': '3000', 'EURC/USD': '1.087' });
    const accepted = await acceptedOptions(chains, prices, usd10);
    expect(accepted.map(({ token, amount }) => [token.caip19.split('/')[0], token.symbol, amount])).toEqual([
      ['eip155:8453', 'USDC', 10_000_000n],
      ['eip155:8453', 'EURC', 9_199_633n],
      ['eip155:8453', 'USDT', 10_000_000n],
      ['eip155:8453', 'AUSD', 10_000_000n],
      // EURAU has no price in USD here; WETH is priced as ETH.
      ['eip155:8453', 'WETH', 3_333_333_333_333_334n],
      ['eip155:8453', 'ETH', 3_333_333_333_333_334n],
      [solana.caip2, 'USDC', 10_000_000n],
      [solana.caip2, 'EURC', 9_199_633n],
      [solana.caip2, 'USDT', 10_000_000n],
    ]);
    for (const { token, amount, expiresAt } of accepted) {
      const quote = await quoteTokenAmount(prices, {
        fiatCurrency: 'USD',
        fiatDecimals: 2,
        fiatAmount: 1000n,
        token,
      });
      expect(amount).toBe(quote.amount);
      expect(expiresAt === null).toBe(token.peggedTo === 'USD');
    }
  });

  it('leaves out a token without a price in the currency, as the gateway does', async () => {
    const accepted = await acceptedOptions(chains, new FixedPriceSource({}), {
      fiat_currency: 'EUR',
      fiat_value: '1000',
    });
    expect(accepted.map(({ token }) => `${token.symbol} ${token.chain}`)).toEqual([
      `EURC ${base.caip2}`,
      `EURAU ${base.caip2}`,
      `EURC ${solana.caip2}`,
    ]);
    expect(accepted.map(({ amount }) => amount)).toEqual([10_000_000n, 10_000_000n, 10_000_000n]);
  });

  describe('with a slow exchange-rate API', () => {
    let server: http.Server;
    let baseUrl: string;
    let answerAfterMs = 0;

    beforeAll(async () => {
      const usdPer: Record<string, string> = { ETH: '3000', EURC: '1.087' };
      server = http.createServer((request, response) => {
        const currency = new URL(request.url ?? '/', 'http://localhost').searchParams.get('currency') ?? '';
        setTimeout(() => {
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ data: { currency, rates: { USD: usdPer[currency] ?? 'n/a' } } }));
        }, answerAfterMs);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('waits at most waitMs: the pegged tokens at once, a token priced later on the next call', async () => {
      const prices = new CoinbasePriceSource({ baseUrl });
      answerAfterMs = 1_500;
      const started = Date.now();
      const first = await acceptedOptions(chains, prices, usd10, { waitMs: 200 });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(first.map(({ token }) => token.symbol)).toEqual(['USDC', 'USDT', 'AUSD', 'USDC', 'USDT']);
      // The rate asked for meanwhile arrives and is cached for the next page.
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      const next = await acceptedOptions(chains, prices, usd10, { waitMs: 200 });
      expect(next.map(({ token, amount }) => [token.symbol, amount])).toEqual([
        ['USDC', 10_000_000n],
        ['EURC', 9_199_633n],
        ['USDT', 10_000_000n],
        ['AUSD', 10_000_000n],
        ['WETH', 3_333_333_333_333_334n],
        ['ETH', 3_333_333_333_333_334n],
        ['USDC', 10_000_000n],
        ['EURC', 9_199_633n],
        ['USDT', 10_000_000n],
      ]);
    });
  });
});
