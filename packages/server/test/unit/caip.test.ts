import { describe, expect, it } from 'vitest';
import { parseAccountId, parseAssetId, parseChainId } from '../../src/chains/caip.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { MAINNET_NETWORKS } from '../../src/chains/mainnets.ts';

describe('CAIP parsing', () => {
  it('parses chain ids', () => {
    expect(parseChainId('eip155:8453')).toEqual({ namespace: 'eip155', reference: '8453', caip2: 'eip155:8453' });
    expect(parseChainId('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')?.namespace).toBe('solana');
    for (const bad of ['eip155:0', 'eip155:08453', 'eip155:abc', 'cosmos:hub', 'eip155', 'eip155:1:2'])
      expect(parseChainId(bad)).toBeUndefined();
  });

  it('parses accounts only with addresses valid for their namespace', () => {
    expect(parseAccountId('eip155:1:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')?.address).toBe(
      '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    );
    expect(parseAccountId('eip155:1:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')).toBeDefined();
    expect(parseAccountId('eip155:1:0xA0B86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toBeUndefined();
    expect(parseAccountId('eip155:1:0x1234')).toBeUndefined();
    expect(
      parseAccountId('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'),
    ).toBeDefined();
    expect(
      parseAccountId('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:0x1111111111111111111111111111111111111111'),
    ).toBeUndefined();
  });

  it('parses asset ids', () => {
    expect(parseAssetId('eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toMatchObject({
      assetNamespace: 'erc20',
      caip2: 'eip155:1',
    });
    expect(parseAssetId('eip155:1/slip44:60')).toMatchObject({ assetNamespace: 'slip44', assetReference: '60' });
    for (const bad of ['eip155:1', 'eip155:1/erc20', 'USDC', 'eip155:1/ERC20:0x1'])
      expect(parseAssetId(bad)).toBeUndefined();
  });
});

describe('mainnet registry', () => {
  const registry = new ChainRegistry(MAINNET_NETWORKS);

  // Which tokens, with which decimals and methods, is docs/tokens.md's table (test/unit/tokenTable.test.ts).
  it('holds each token under its own network, by a CAIP-19 id the registry finds it by again', () => {
    for (const network of registry.networks) {
      for (const token of network.tokens) {
        expect(parseAssetId(token.caip19)?.caip2).toBe(network.caip2);
        expect(token.chain).toBe(network.caip2);
        expect(registry.token(token.caip19)).toBe(token);
      }
    }
  });

  it('finds tokens case-insensitively on EVM and exactly on Solana', () => {
    expect(registry.token('eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')?.symbol).toBe('USDC');
    expect(
      registry.token('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')
        ?.symbol,
    ).toBe('USDC');
    expect(
      registry.token('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:epjfwdd5aufqssqem2qn1xzybapc8g4wegGkZwyTDt1v'),
    ).toBeUndefined();
    expect(registry.token('eip155:1/erc20:0x0000000000000000000000000000000000000001')).toBeUndefined();
  });
});
