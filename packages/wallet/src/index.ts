export * from './browser.ts';
export { evmSignerFromAccount } from './evmAccountSigner.ts';
export type { EvmAccountSignerOptions } from './evmAccountSigner.ts';
export { solanaSignerFromKeyPair } from './solanaSigner.ts';
export type { SolanaKeyPairSigner } from './solanaSigner.ts';
