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
import type { Translate } from './i18n/translate.ts';

/**
 * What went wrong with a browser-wallet payment, in words a buyer can act on; every case ends in a retry, so
 * each message says what to do before retrying. `networkNames` maps CAIP-2 ids to display names. What the wallet
 * or the payment service said of the problem is quoted as they said it, untranslated.
 */
export function explainWalletError(
  t: Translate,
  error: unknown,
  networkNames: ReadonlyMap<string, string> = new Map(),
): string {
  if (error instanceof UserRejectedError) return t('walletError.declined');
  if (error instanceof UnknownChainError) {
    return t('walletError.unknownChain', { network: networkNames.get(error.chainId) ?? error.chainId });
  }
  if (error instanceof TransactionRevertedError) return t('walletError.reverted');
  if (error instanceof UnsupportedActionError || error instanceof InvalidActionError) {
    return t('walletError.unsupported');
  }
  if (error instanceof WalletProviderError) return t('walletError.provider', { problem: error.message });
  if (error instanceof GatewayNetworkError) return t('walletError.unreachable');
  if (error instanceof GatewayError) {
    if (error.code === 'quote_expired') return t('walletError.quoteExpired');
    if (error.code === 'rate_limited') return t('walletError.rateLimited');
    if (error.code === 'merchant_not_active') return t('walletError.merchantNotActive');
    return t('walletError.refused', { problem: error.message });
  }
  return t('walletError.other');
}
