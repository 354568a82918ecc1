export { startDevnet } from './devnet.ts';
export { runDevnetCli } from './cli.ts';
export { PERMIT2_ADDRESS } from './evm/chain.ts';
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
