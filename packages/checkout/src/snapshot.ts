import type { CollectData, GatewayPayment, PaymentOption, ReceivedPart, SucceededInfo } from '@paygate/wallet/browser';
import type { WalletNamespace } from './seams.ts';

/**
 * Where the buyer is, in order: the payment loads, the buyer connects a wallet, picks one of its options, gives
 * details when the option asks for them, signs in the wallet, the service confirms, the network settles; then one
 * of the four outcomes. `underpaid`: less than asked arrived by a transfer to the payment's deposit address, and the
 * payment waits for the rest there (`received`); a wallet is not offered then, so the buyer never pays the whole
 * again. `unavailable`: the payment cannot be shown (unknown id, refused credential).
 */
export type CheckoutStage =
  | 'loading'
  | 'unavailable'
  | 'connect'
  | 'connecting'
  | 'quoting'
  | 'options'
  | 'collecting'
  | 'signing'
  | 'confirming'
  | 'processing'
  | 'underpaid'
  | 'succeeded'
  | 'failed'
  | 'expired'
  | 'cancelled';

export const FINAL_STAGES: ReadonlySet<CheckoutStage> = new Set([
  'unavailable',
  'succeeded',
  'failed',
  'expired',
  'cancelled',
]);

/**
 * A problem the buyer can act on, shown in the stage it happened in. `code` is the service's error code, the wallet
 * SDK's (`user_rejected`, `unknown_chain`...), or the runtime's: `network` (no answer), `no_account` (the wallet
 * shared none), `no_option` (the account cannot pay this payment), `buyer_data` (the details form failed).
 */
export interface CheckoutError {
  code: string;
  message: string;
  /** Whether `retry` repeats what failed. */
  retryable: boolean;
}

/** Everything a page renders, as plain data: it survives `JSON.stringify` and `JSON.parse` unchanged. */
export interface CheckoutSnapshot {
  paymentId: string;
  stage: CheckoutStage;
  /** The payment as the gateway shows it, once loaded. */
  payment: GatewayPayment | null;
  /** The connected wallet's name and account, once connected. */
  wallet: { id: string; name: string; namespace: WalletNamespace; address: string } | null;
  /** The ways the connected account can pay, as last quoted. */
  options: PaymentOption[];
  selectedOptionId: string | null;
  /** The form the chosen option asks for, while `collecting`. */
  collectData: CollectData | null;
  /** While `underpaid`: each token in which less than asked arrived, the rest to send, and where. */
  received: ReceivedPart[];
  /** Token amount and transaction, once succeeded. */
  paid: SucceededInfo | null;
  /** Why the payment failed (`failureCode`), once failed. */
  failureCode: string | null;
  error: CheckoutError | null;
}

export function initialSnapshot(paymentId: string): CheckoutSnapshot {
  return {
    paymentId,
    stage: 'loading',
    payment: null,
    wallet: null,
    options: [],
    selectedOptionId: null,
    collectData: null,
    received: [],
    paid: null,
    failureCode: null,
    error: null,
  };
}

/** Seconds until the payment expires by `now` (milliseconds), never below 0; null before it loads. */
export function secondsLeft(snapshot: CheckoutSnapshot, now: number): number | null {
  if (!snapshot.payment) return null;
  return Math.max(0, snapshot.payment.expiresAt - Math.floor(now / 1000));
}

/** The option the buyer picked, if any. */
export function selectedOption(snapshot: CheckoutSnapshot): PaymentOption | undefined {
  return snapshot.options.find((option) => option.id === snapshot.selectedOptionId);
}
