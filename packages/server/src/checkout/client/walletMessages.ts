import {
  GatewayError,
  GatewayNetworkError,
  InvalidActionError,
  TransactionRevertedError,
  UnknownChainError,
  UnsupportedActionError,
  UserRejectedError,
  WalletProviderError,
} from '@paygate/wallet/browser';

/**
 * What went wrong with a browser-wallet payment, in words a buyer can act on; every case ends in a retry, so
 * each message says what to do before retrying. `networkNames` maps CAIP-2 ids to display names.
 */
export function explainWalletError(error: unknown, networkNames: ReadonlyMap<string, string> = new Map()): string {
  if (error instanceof UserRejectedError) {
    return 'You declined the request in your wallet, so nothing was paid. Try again when you are ready.';
  }
  if (error instanceof UnknownChainError) {
    const network = networkNames.get(error.chainId) ?? error.chainId;
    return `Your wallet could not switch to the ${network} network. Add ${network} to your wallet (or switch to it yourself), then try again.`;
  }
  if (error instanceof TransactionRevertedError) {
    return 'The transaction was rejected by the network. Check your balance and try again.';
  }
  if (error instanceof UnsupportedActionError || error instanceof InvalidActionError) {
    return 'Your wallet cannot carry out this way of paying. Choose another option or scan the QR code with a phone wallet.';
  }
  if (error instanceof WalletProviderError) {
    return `Your wallet reported a problem: ${error.message}. Try again, or scan the QR code with a phone wallet.`;
  }
  if (error instanceof GatewayNetworkError) {
    return 'We could not reach the payment service. Check your connection and try again.';
  }
  if (error instanceof GatewayError) {
    if (error.code === 'quote_expired')
      return 'The price quote ran out before you signed. Try again to get a fresh quote.';
    if (error.code === 'rate_limited') return 'Too many attempts in a short time. Wait a moment, then try again.';
    if (error.code === 'merchant_not_active')
      return 'This shop is not taking payments at the moment, so nothing was charged. Contact the shop.';
    return `The payment service refused the payment: ${error.message} Try again, or choose another option.`;
  }
  return 'Something went wrong with your wallet. Try again, or scan the QR code with a phone wallet.';
}
