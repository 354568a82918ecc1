/** What executes the `eip155` actions of an option: EIP-1193-style requests for one chain at a time. */
export interface EvmSigner {
  /**
   * Runs one wallet request on the chain `chainId` (CAIP-2, e.g. `eip155:8453`) and returns its result:
   * a signature for `eth_signTypedData_v4` and `personal_sign`, the transaction hash for `eth_sendTransaction`.
   */
  request(args: { chainId: string; method: string; params: unknown[] }): Promise<string>;
}

/** What executes the `solana` actions of an option. */
export interface SolanaSigner {
  /** Adds the signer's signature to a base64 wire transaction and returns the whole signed transaction, base64. */
  signTransaction(base64Transaction: string): Promise<string>;
}

/** The signers a wallet holds, by CAIP-2 namespace; an option needing a missing one fails before anything is signed. */
export interface Signers {
  eip155?: EvmSigner;
  solana?: SolanaSigner;
}

/** The methods each namespace supports (wallet rule 1); `solana_signAndSendTransaction` is deliberately absent. */
export const SUPPORTED_METHODS = {
  eip155: ['eth_signTypedData_v4', 'eth_sendTransaction', 'personal_sign'],
  solana: ['solana_signTransaction'],
} as const satisfies Record<keyof Signers, readonly string[]>;

/** `eip155:8453` -> 8453; throws for anything that is not an EVM chain id. */
export function evmChainNumber(chainId: string): number {
  const match = /^eip155:([1-9][0-9]{0,15})$/.exec(chainId);
  if (!match) throw new TypeError(`Not an eip155 CAIP-2 chain id: ${chainId}`);
  return Number(match[1]);
}
