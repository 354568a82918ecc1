import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainnetNetworks, parseRpcUrls, setUpChains } from '../../src/chains/chainConfig.ts';
import { rpcUrlList } from '../../src/chains/registry.ts';
import { RpcEndpoints, rpcHost, transportFailure, withHostOnly } from '../../src/chains/rpcEndpoints.ts';
import { ConfigError } from '../../src/config.ts';

const BASE = 'RPC_URL_EIP155_8453';

describe('RPC URL lists', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-rpc-urls-'));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('takes one URL as before', () => {
    expect(mainnetNetworks({ [BASE]: 'https://base.example/v2/key' })[0]?.rpcUrl).toBe('https://base.example/v2/key');
    expect(rpcUrlList('https://base.example/v2/key')).toEqual(['https://base.example/v2/key']);
  });

  it('takes several, in order, with spaces around the commas', () => {
    const [network] = mainnetNetworks({ [BASE]: ' https://a.example/k1 , http://127.0.0.1:8545,https://c.example ' });
    expect(network?.rpcUrl).toBe('https://a.example/k1,http://127.0.0.1:8545,https://c.example');
    expect(rpcUrlList(network?.rpcUrl as string)).toEqual([
      'https://a.example/k1',
      'http://127.0.0.1:8545',
      'https://c.example',
    ]);
  });

  it('refuses an empty entry, or one that is not an http(s) URL, naming the variable and position, not the URL', () => {
    for (const [value, problem] of [
      ['https://a.example,,https://b.example', /RPC_URL_EIP155_8453: entry 2 of 3 is empty/],
      ['https://a.example,', /entry 2 of 2 is empty/],
      [',https://a.example', /entry 1 of 2 is empty/],
      [' , ', /entry 1 of 2 is empty/],
      ['https://a.example/secret, wss://b.example/secret', /entry 2 of 2 is not an http\(s\) URL/],
      ['https://a.example, not a url', /entry 2 of 2 is not a URL/],
    ] as const) {
      const refusal = (() => {
        try {
          mainnetNetworks({ [BASE]: value });
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refusal, value).toBeInstanceOf(ConfigError);
      expect((refusal as Error).message, value).toMatch(problem);
      expect((refusal as Error).message).not.toContain('secret');
    }
  });

  it('refuses a bad list at start, before anything runs', async () => {
    await expect(setUpChains('mainnet', dir, { [BASE]: 'https://a.example,,https://b.example' })).rejects.toThrow(
      /RPC_URL_EIP155_8453: entry 2 of 3 is empty/,
    );
  });

  it('reads a CHAINS file rpcUrl as a comma-separated string or a JSON array, and refuses empty entries there', async () => {
    const file = path.join(dir, 'networks.json');
    const network = (rpcUrl: unknown) => ({
      caip2: 'eip155:10',
      namespace: 'eip155',
      name: 'OP',
      rpcUrl,
      confirmations: 3,
      blockTimeMs: 2000,
      tokens: [],
    });
    await fs.writeFile(file, JSON.stringify([network('https://a.example/k , https://b.example')]));
    expect((await setUpChains(file, dir, {})).registry.network('eip155:10')?.rpcUrl).toBe(
      'https://a.example/k,https://b.example',
    );
    await fs.writeFile(file, JSON.stringify([network(['https://a.example/k', 'https://b.example'])]));
    expect((await setUpChains(file, dir, {})).registry.network('eip155:10')?.rpcUrl).toBe(
      'https://a.example/k,https://b.example',
    );
    await fs.writeFile(file, JSON.stringify([network(['https://a.example', ''])]));
    await expect(setUpChains(file, dir, {})).rejects.toThrow(/network eip155:10, rpcUrl: entry 2 of 2 is empty/);
    await fs.writeFile(file, JSON.stringify([network([])]));
    await expect(setUpChains(file, dir, {})).rejects.toThrow(/must be an RPC URL or a comma-separated list/);
  });

  it('is parsed the same whatever the order of checks: parseRpcUrls on its own', () => {
    expect(parseRpcUrls('http://a.example', 'X')).toBe('http://a.example');
    expect(() => parseRpcUrls(42, 'X')).toThrow(ConfigError);
  });
});

describe('RPC URL health', () => {
  it('passes a failed URL over for its cool-down while a later one answers, then tries it first again', () => {
    let now = 1_000;
    const endpoints = new RpcEndpoints('eip155:1', ['http://a', 'http://b', 'http://c'], {
      coolDownMs: 5_000,
      now: () => now,
    });
    expect(endpoints.order()).toEqual([0, 1, 2]);
    endpoints.failed(0, 'ECONNREFUSED');
    expect([endpoints.passOver(0), endpoints.passOver(1)]).toEqual([true, false]);
    expect(endpoints.order()).toEqual([1, 2, 0]);
    endpoints.failed(1, 'HTTP 503');
    endpoints.failed(2, 'timed out');
    // Every URL resting: none is passed over, in the configured order.
    expect([0, 1, 2].map((index) => endpoints.passOver(index))).toEqual([false, false, false]);
    expect(endpoints.order()).toEqual([0, 1, 2]);
    now += 5_001;
    expect(endpoints.order()).toEqual([0, 1, 2]);
    expect(endpoints.passOver(0)).toBe(false);
  });

  it('tells a URL failure (connection, HTTP status, timeout) from a node answering with a JSON-RPC error', () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    expect(transportFailure(refused)).toBe('ECONNREFUSED');
    expect(
      transportFailure(Object.assign(new Error('HTTP request failed.'), { name: 'HttpRequestError', status: 502 })),
    ).toBe('HTTP 502');
    expect(transportFailure(new DOMException('The operation timed out.', 'TimeoutError'))).toBe('timed out');
    expect(transportFailure(Object.assign(new Error('nonce too low'), { code: -32000 }))).toBeUndefined();
  });

  it('shows only the scheme and host of a URL in errors', () => {
    const url = 'https://rpc.example/v2/SECRETKEY?token=abc';
    const error = Object.assign(new Error(`HTTP request failed.\nURL: ${url}`), {
      url,
      cause: new Error(`at ${url}`),
    });
    withHostOnly(error, url);
    expect(`${error.message} ${error.url} ${(error.cause as Error).message} ${error.stack}`).not.toMatch(
      /SECRETKEY|token=abc/,
    );
    expect(error.message).toContain('https://rpc.example');
    expect(rpcHost(url)).toBe('rpc.example');
  });
});
