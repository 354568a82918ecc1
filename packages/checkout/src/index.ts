export type { CheckoutActions, PaymentSession } from './session.ts';
export { createPaymentSession } from './session.ts';
export type { CheckoutError, CheckoutSnapshot, CheckoutStage } from './snapshot.ts';
export { FINAL_STAGES, initialSnapshot, secondsLeft, selectedOption } from './snapshot.ts';
export type {
  CheckoutClock,
  CheckoutSeams,
  CheckoutTelemetry,
  CheckoutTransport,
  CheckoutWallet,
  WalletNamespace,
} from './seams.ts';
export { silentTelemetry, systemClock } from './seams.ts';
export type { BrowserTransportOptions } from './transport.ts';
export { browserTransport } from './transport.ts';
export { eip1193Wallet, walletIcon, watchEvmWallets } from './wallets/eip6963.ts';
export { watchSolanaWallets } from './wallets/walletStandard.ts';
export type {
  AcceptedNetwork,
  CollectData,
  CollectedData,
  GatewayPayment,
  PaymentOption,
  ReceivedPart,
  SucceededInfo,
  TokenAmount,
} from '@paygate/wallet/browser';
