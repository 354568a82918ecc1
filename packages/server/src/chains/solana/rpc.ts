import { createSolanaRpc, type Rpc, type SolanaRpcApi } from '@solana/kit';

/** A Solana JSON-RPC client; the same code talks to the devnet and to mainnet. */
export type SolanaRpc = Rpc<SolanaRpcApi>;

export function solanaRpc(url: string): SolanaRpc {
  return createSolanaRpc(url);
}
