import type { CheckoutError } from '@paygate/checkout';
import type { Translate } from './i18n/translate.ts';

const UNSUPPORTED = new Set(['unsupported_action', 'invalid_action', 'missing_signer']);

/**
 * What went wrong with a browser-wallet payment, in words a buyer can act on, from the runtime's problem code;
 * every case ends in a retry, so each message says what to do before retrying. `networkName` names the network
 * paid on. What the wallet or the payment service said of a problem with no words of its own is quoted as they said
 * it, untranslated.
 */
export function explainWalletProblem(t: Translate, problem: CheckoutError, networkName: string): string {
  if (problem.code === 'user_rejected') return t('walletError.declined');
  if (problem.code === 'unknown_chain') return t('walletError.unknownChain', { network: networkName });
  if (problem.code === 'transaction_reverted') return t('walletError.reverted');
  if (UNSUPPORTED.has(problem.code)) return t('walletError.unsupported');
  if (problem.code === 'provider_error') return t('walletError.provider', { problem: problem.message });
  if (problem.code === 'network') return t('walletError.unreachable');
  if (problem.code === 'quote_expired') return t('walletError.quoteExpired');
  if (problem.code === 'rate_limited') return t('walletError.rateLimited');
  if (problem.code === 'merchant_not_active') return t('walletError.merchantNotActive');
  if (problem.code === 'unexpected') return t('walletError.other');
  return t('walletError.refused', { problem: problem.message });
}
