import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CoinbasePriceSource } from '../../../src/chains/prices/coinbasePriceSource.ts';
import { PriceUnavailableError } from '../../../src/chains/prices/priceSource.ts';
import { token } from './tokens.ts';

type Reply = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A real HTTP server on the loopback standing in for the exchange-rate API. */
let server: http.Server;
let baseUrl: string;
let reply: Reply;
let requests: string[];

const json =
  (status: number, body: unknown): Reply =>
  (_request, response) => {
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(typeof body === 'string' ? body : JSON.stringify(body));
  };

const ratesFor = (currency: string, rates: Record<string, string>) => ({ data: { currency, rates } });

beforeAll(async () => {
  server = http.createServer((request, response) => {
    requests.push(request.url ?? '');
    reply(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  requests = [];
  reply = json(200, ratesFor('ETH', { USD: '3000.50', EUR: '2760.4', JPY: '450000', BAD: 'n/a' }));
});

function clockAt(start: number) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('CoinbasePriceSource against a local exchange-rate API', () => {
  it('asks for the token and reads the rate in the currency', async () => {
    const clock = clockAt(Date.UTC(2026, 0, 1));
    const prices = new CoinbasePriceSource({ baseUrl: `${baseUrl}/`, clock, quoteTtlMs: 90_000 });
    const quote = await prices.quote('USD', token('ETH', 18));
    expect(quote).toEqual({
      rate: { numerator: 6001n, denominator: 2n },
      expiresAt: new Date(Date.UTC(2026, 0, 1) + 90_000),
    });
    expect(requests).toEqual(['/v2/exchange-rates?currency=ETH']);
  });

  it('prices a wrapped coin as the coin it wraps', async () => {
    const prices = new CoinbasePriceSource({ baseUrl, clock: clockAt(Date.UTC(2026, 0, 1)) });
    const quote = await prices.quote('USD', { ...token('WETH', 18), priceSymbol: 'ETH' });
    expect(quote.rate).toEqual({ numerator: 6001n, denominator: 2n });
    expect(requests).toEqual(['/v2/exchange-rates?currency=ETH']);
  });

  it('reuses an answer for every currency until the cache lifetime passes', async () => {
    const clock = clockAt(Date.UTC(2026, 0, 1));
    const prices = new CoinbasePriceSource({ baseUrl, clock, cacheTtlMs: 60_000 });
    await prices.quote('USD', token('ETH', 18));
    expect((await prices.quote('EUR', token('ETH', 18))).rate).toEqual({ numerator: 13_802n, denominator: 5n });
    clock.advance(59_999);
    await prices.quote('JPY', token('ETH', 18));
    expect(requests).toHaveLength(1);

    reply = json(200, ratesFor('ETH', { USD: '3100' }));
    clock.advance(1);
    expect((await prices.quote('USD', token('ETH', 18))).rate).toEqual({ numerator: 3100n, denominator: 1n });
    expect(requests).toHaveLength(2);
  });

  it('shares one request among concurrent quotes and never asks for a pegged token', async () => {
    const prices = new CoinbasePriceSource({ baseUrl });
    const quotes = await Promise.all([
      prices.quote('USD', token('ETH', 18)),
      prices.quote('EUR', token('ETH', 18)),
      prices.quote('USD', token('ETH', 18)),
    ]);
    expect(quotes.map((quote) => quote.rate.numerator)).toEqual([6001n, 13_802n, 6001n]);
    expect(await prices.quote('USD', token('USDC', 6, 'USD'))).toEqual({
      rate: { numerator: 1n, denominator: 1n },
      expiresAt: null,
    });
    expect(requests).toEqual(['/v2/exchange-rates?currency=ETH']);
  });

  it('fails clearly on a server error and asks again next time', async () => {
    reply = json(500, { errors: [{ id: 'internal_server_error' }] });
    const prices = new CoinbasePriceSource({ baseUrl });
    await expect(prices.quote('USD', token('ETH', 18))).rejects.toThrow(
      new PriceUnavailableError('the exchange-rate API answered 500 for ETH'),
    );
    reply = json(200, ratesFor('ETH', { USD: '3000' }));
    expect((await prices.quote('USD', token('ETH', 18))).rate.numerator).toBe(3000n);
    expect(requests).toHaveLength(2);
  });

  it('fails clearly when the API does not answer in time', async () => {
    reply = () => undefined;
    const prices = new CoinbasePriceSource({ baseUrl, timeoutMs: 200 });
    const started = Date.now();
    await expect(prices.quote('USD', token('ETH', 18))).rejects.toThrow(
      new PriceUnavailableError('the exchange-rate API is unavailable for ETH: no answer within 200 ms'),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('fails clearly on malformed JSON, an unexpected shape and a missing currency', async () => {
    const prices = new CoinbasePriceSource({ baseUrl, cacheTtlMs: 0 });
    reply = json(200, '{"data": {"currency": "ETH", "rates": {');
    await expect(prices.quote('USD', token('ETH', 18))).rejects.toThrow(
      new PriceUnavailableError('the exchange-rate API is unavailable for ETH: the answer is not JSON'),
    );
    reply = json(200, ratesFor('BTC', { USD: '90000' }));
    await expect(prices.quote('USD', token('ETH', 18))).rejects.toThrow(
      new PriceUnavailableError('the exchange-rate API answered for ETH in an unexpected shape'),
    );
    reply = json(200, { data: { currency: 'ETH', rates: 'USD=3000' } });
    await expect(prices.quote('USD', token('ETH', 18))).rejects.toBeInstanceOf(PriceUnavailableError);
    reply = json(200, ratesFor('ETH', { USD: '3000', BAD: 'n/a' }));
    await expect(prices.quote('BAD', token('ETH', 18))).rejects.toThrow(
      new PriceUnavailableError('the exchange-rate API has no price for ETH in BAD'),
    );
    await expect(prices.quote('CHF', token('ETH', 18))).rejects.toBeInstanceOf(PriceUnavailableError);
  });

  it('fails clearly when nothing listens', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const prices = new CoinbasePriceSource({ baseUrl: `http://127.0.0.1:${port}` });
    await expect(prices.quote('USD', token('ETH', 18))).rejects.toThrow(
      new PriceUnavailableError('the exchange-rate API is unavailable for ETH: the request failed'),
    );
  });
});
