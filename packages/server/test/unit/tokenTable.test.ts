import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { rpcUrlVariable } from '../../src/chains/chainConfig.ts';
import { MAINNET_NETWORKS } from '../../src/chains/mainnets.ts';
import type { NetworkInfo } from '../../src/chains/registry.ts';
import { TESTNET_NETWORKS } from '../../src/chains/testnets.ts';

const TOKENS_DOC = fileURLToPath(new URL('../../../../docs/tokens.md', import.meta.url));

/** The rows of every Markdown table in `text`, each cell trimmed and stripped of its backticks, header row first. */
function tables(text: string): string[][][] {
  const found: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      current = undefined;
      continue;
    }
    const cells = line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim().replaceAll('`', ''));
    if (cells.every((cell) => /^-+$/.test(cell))) continue;
    if (!current) {
      current = [];
      found.push(current);
    }
    current.push(cells);
  }
  return found;
}

/** The tables of the docs section `## <heading>`, as objects keyed by their header cells. */
function sectionTables(heading: string): Record<string, string>[][] {
  const doc = fs.readFileSync(TOKENS_DOC, 'utf8');
  const start = doc.indexOf(`\n## ${heading}`);
  expect(start, `docs/tokens.md has a section "${heading}"`).toBeGreaterThan(-1);
  const end = doc.indexOf('\n## ', start + 1);
  return tables(doc.slice(start, end === -1 ? undefined : end)).map(([header, ...rows]) =>
    rows.map((row) => Object.fromEntries((header ?? []).map((name, index) => [name, row[index] ?? '']))),
  );
}

const STANDARD_NAMES = { eip3009: 'EIP-3009', eip2612: 'EIP-2612' } as const;

/** A preset's networks as the docs table writes them. */
function networkRows(preset: NetworkInfo[]) {
  return preset.map((network) => ({
    network: network.name,
    'CAIP-2': network.caip2,
    'RPC URL variable': rpcUrlVariable(network.caip2),
    confirmations: String(network.confirmations),
    'block time': `${network.blockTimeMs / 1000} s`,
  }));
}

/** A preset's tokens as the docs table writes them, but for the source each method was decided from. */
function tokenRows(preset: NetworkInfo[]) {
  return preset.flatMap((network) =>
    network.tokens.map((token) => ({
      network: network.name,
      token: token.symbol,
      'address or mint': token.address || '(coin)',
      decimals: String(token.decimals),
      'peg or price': token.peggedTo ?? `rate of ${token.priceSymbol ?? token.symbol}`,
      method: token.method,
      implements: token.supports?.map((standard) => STANDARD_NAMES[standard]).join(', ') || '—',
    })),
  );
}

describe.each([
  ['Mainnet (`CHAINS=mainnet`)', 'mainnet', MAINNET_NETWORKS],
  ['Testnet (`CHAINS=testnet`)', 'testnet', TESTNET_NETWORKS],
])('docs/tokens.md, %s', (heading, _name, preset) => {
  const [networks, tokens] = sectionTables(heading);

  it('lists exactly the preset’s networks, with their depths and block times', () => {
    expect(networks).toEqual(networkRows(preset));
  });

  it('lists exactly the preset’s tokens, with their addresses, decimals, pegs and methods', () => {
    const documented = (tokens ?? []).map(({ 'method decided from': source, ...row }) => {
      expect(source, `${row.network} ${row.token} names the source of its method`).not.toBe('');
      return row;
    });
    expect(documented).toEqual(tokenRows(preset));
  });

  it('pays a token by EIP-3009 only where its source implements it, and names each EVM address checksummed', () => {
    for (const token of preset.flatMap((network) => network.tokens)) {
      if (token.method === 'eip3009') expect(token.supports, token.caip19).toContain('eip3009');
      if (token.caip19.includes('/erc20:')) expect(getAddress(token.address)).toBe(token.address);
    }
  });
});
