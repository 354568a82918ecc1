export { PERMIT2_ADDRESS } from './abis.ts';
export { AmountsByAccount, readBalances, readPermit2Allowances } from './balances.ts';
export { createEvmPublicClient, EvmClients, evmChainId } from './clients.ts';
export {
  type Eip3009Token,
  type ExpectedReceipt,
  newAuthorizationNonce,
  readEip3009Token,
  type ReceiveAuthorizationTypedData,
  receiveWithAuthorizationTypedData,
  relayReceiveWithAuthorization,
  type StoredAuthorization,
  storedAuthorizationOf,
  storedAuthorizationTypedData,
  verifyReceiveAuthorization,
} from './eip3009.ts';
export {
  claimPermit,
  type Eip2612Domain,
  type ExpectedPermit,
  PERMIT_PULL_PURPOSE,
  permitTypedData,
  readEip2612Domain,
  readPermitNonce,
  relayPermitPull,
  type StoredEip2612Permit,
  storedPermitOf,
  storedPermitTypedData,
  verifyPermit,
} from './eip2612.ts';
export { type PaymentRefusalCode, PaymentRefusedError } from './errors.ts';
export {
  deployPermitPuller,
  permitPullerAddress,
  permitPullerDeployed,
  requirePermitPullerDeployable,
} from './permitPullerDeployment.ts';
export {
  blockTimestamps,
  claimNativeTransfer,
  type ExpectedNativeTransfer,
  NATIVE_TRANSFER_GAS,
  nativeTransferReference,
  type NativeTransferState,
  verifyNativeTransfer,
} from './nativeTransfer.ts';
export {
  type ExpectedPermitTransfer,
  permit2ApprovalTransaction,
  permit2NonceForPayment,
  type PermitTransferFrom,
  type PermitTransferTypedData,
  permitTransferFromTypedData,
  readPermit2Allowance,
  relayPermitTransfer,
  verifyPermitTransfer,
} from './permit2.ts';
export {
  type CheckReport,
  type RecordedTransaction,
  Relayer,
  type RelayerOptions,
  type RelayRequest,
} from './relayer.ts';
