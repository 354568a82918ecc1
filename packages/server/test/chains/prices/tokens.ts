import type { TokenInfo } from '../../../src/chains/registry.ts';

export function token(symbol: string, decimals: number, peggedTo?: string): TokenInfo {
  return {
    caip19: `eip155:1/erc20:0x${symbol.padStart(40, '0')}`,
    chain: 'eip155:1',
    symbol,
    name: symbol,
    decimals,
    address: '',
    method: 'native',
    ...(peggedTo ? { peggedTo } : {}),
  };
}
