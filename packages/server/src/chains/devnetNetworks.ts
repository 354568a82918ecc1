import type { DevnetManifest, DevnetToken } from '@paygate/devnet';
import type { NetworkInfo, TokenInfo } from './registry.ts';

const PEGS: Record<string, string> = { USDC: 'USD', USDT: 'USD', USDS: 'USD', PYUSD: 'USD', EURC: 'EUR' };

function tokenInfo(chain: string, token: DevnetToken): TokenInfo {
  const peggedTo = PEGS[token.symbol];
  return { ...token, chain, ...(peggedTo ? { peggedTo } : {}) };
}

/** The networks of a running devnet, in the registry's terms. */
export function networksFromDevnet(manifest: DevnetManifest): NetworkInfo[] {
  return [
    ...manifest.evm.map((chain) => ({
      caip2: chain.caip2,
      namespace: 'eip155' as const,
      name: chain.name,
      rpcUrl: chain.rpcUrl,
      confirmations: 1,
      blockTimeMs: chain.blockTimeMs,
      tokens: [...chain.tokens, chain.nativeToken].map((token) => tokenInfo(chain.caip2, token)),
    })),
    {
      caip2: manifest.solana.caip2,
      namespace: 'solana' as const,
      name: manifest.solana.name,
      rpcUrl: manifest.solana.rpcUrl,
      confirmations: 1,
      blockTimeMs: manifest.solana.slotMs,
      tokens: [...manifest.solana.tokens, manifest.solana.nativeToken].map((token) =>
        tokenInfo(manifest.solana.caip2, token),
      ),
    },
  ];
}
