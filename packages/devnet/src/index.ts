export { startDevnet } from './devnet.ts';
export { runDevnetCli } from './cli.ts';
export { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from './evm/chain.ts';
export type {
  Devnet,
  DevnetBuyer,
  DevnetEvmChain,
  DevnetManifest,
  DevnetOptions,
  DevnetSolana,
  DevnetToken,
  FundedAmount,
  FundRequest,
  PaymentMethod,
} from './types.ts';
