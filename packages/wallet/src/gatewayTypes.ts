/** Wire shapes of the wallet-side gateway (interface "Gateway (wallet side)", D10, D12, D14). */

export type GatewayPaymentStatusValue =
  | 'requires_action'
  | 'processing'
  | 'succeeded'
  | 'failed'
  | 'expired'
  | 'cancelled';

export interface AmountDisplay {
  assetSymbol: string;
  assetName: string;
  decimals: number;
}

export interface FiatAmount {
  /** `iso4217/<CODE>` */
  unit: string;
  /** Minor units of the currency. */
  value: string;
  display: AmountDisplay;
}

export interface TokenAmount {
  /** `caip19/<CAIP-19 asset id>` */
  unit: string;
  /** Minor units of the token. */
  value: string;
  display: (AmountDisplay & { iconUrl?: string; networkName?: string; networkIconUrl?: string }) | null;
}

export interface CollectData {
  /** Form URL, already scoped to the option's account. */
  url: string;
  /** JSON schema of the data to collect. */
  schema: Record<string, unknown>;
  /** @deprecated The schema's fields as a list, as WalletConnect Pay's document still requires; use `schema`. */
  fields?: { id: string; name: string; type: 'text' | 'date' | 'checkbox'; required: boolean }[];
}

/**
 * An executable action. The server may name the chain id `chain_id` or `chainId`; the client always
 * normalises it to `chain_id` (the D10 wire name).
 */
export interface WalletRpcAction {
  type: 'walletRpc';
  data: {
    /** CAIP-2 chain id, e.g. `eip155:8453` or `solana:<genesis>`. */
    chain_id: string;
    method: string;
    /** JSON-encoded parameters, for the wallet as they are (a native-coin transfer's `data` is its option's reference). */
    params: string;
  };
}

/** Not executable: resolve it with `GatewayClient.fetchActions` into one or more walletRpc actions. */
export interface BuildAction {
  type: 'build';
  data: { data: string };
}

export type Action = WalletRpcAction | BuildAction;

export interface PaymentOption {
  /** Sent back as `optionId`. */
  id: string;
  /** CAIP-10 account the option pays from. */
  account: string;
  amount: TokenAmount;
  etaS: number;
  /** Unix seconds when the quote ends; null when the token is pegged to the payment's currency. */
  expiresAt: number | null;
  actions: Action[];
  collectData: CollectData | null;
}

/** Payment details returned with `includePaymentInfo`; only `expiresAt` is fixed by the interface. */
export interface PaymentInfo {
  expiresAt: number;
  [field: string]: unknown;
}

export interface OptionsResponse {
  options: PaymentOption[];
  collectData?: CollectData | null;
  /** With `includePaymentInfo`: the payment, under the name WalletConnect Pay gives it. */
  info?: PaymentInfo | null;
  /** @deprecated The same as `info`, as earlier answers named it. */
  paymentInfo?: PaymentInfo;
}

export interface GetOptionsRequest {
  /** CAIP-10 accounts (1 to 20). Include Solana accounts only when the wallet holds Solana keys. */
  accounts: string[];
  /** Option ids whose quotes should be refreshed. */
  refresh?: string[];
  /** Sent as the `includePaymentInfo` query parameter. */
  includePaymentInfo?: boolean;
}

export interface FetchActionsRequest {
  optionId: string;
  /** The `data` string of the build action. */
  data: string;
}

export interface FetchActionsResponse {
  /** Process all of them, in order. */
  actions: WalletRpcAction[];
}

export interface WalletRpcResult {
  type: 'walletRpc';
  /** Signature hex, transaction hash, or base64 signed Solana transaction. */
  data: string[];
}

export interface CollectedData {
  fields: Array<{ id: string; value: string | number | boolean | null }>;
}

export interface ConfirmRequest {
  optionId: string;
  /** One result per action of the option, same length and order. */
  results: WalletRpcResult[];
  /** Only when the wallet rendered its own form (not after the WebView flow). */
  collectedData?: CollectedData;
}

export interface LongPollOptions {
  /** How long the server may hold the request (milliseconds, at least 0; the server caps it at 30 s). */
  maxPollMs?: number;
  /** Ends the request (and any retry) early: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface StatusPollOptions extends LongPollOptions {
  /**
   * paygate: the `version` of the last status or payment the caller saw. A change made before the request arrived
   * then answers it at once instead of after the next change.
   */
  since?: string;
}

/** What a succeeded payment was paid with. */
export interface SucceededInfo {
  optionAmount: TokenAmount;
  txId: string;
}

export interface PaymentStatus {
  status: GatewayPaymentStatusValue;
  isFinal: boolean;
  /** Delay before the next check while not final. */
  pollInMs?: number | null;
  /** Present when succeeded. */
  info?: SucceededInfo | null;
  /** Present only when failed, e.g. `declined_user`. */
  failureCode?: string;
  /** paygate: while unpaid, each token in which less than asked arrived, and where the rest goes. */
  received?: ReceivedPart[];
  /** paygate: names what the buyer sees of the payment; `since` of a status long-poll. */
  version?: string;
}

/** paygate: transfers of less than asked in one token; the payment waits for the rest until it expires. */
export interface ReceivedPart {
  /** What arrived so far. */
  amount: TokenAmount;
  /** What the payment asks for in this token. */
  expected: TokenAmount;
  /** What is still to send. */
  remaining: TokenAmount;
  /** The payment's deposit address for this token. */
  address: string;
  /** The EIP-681 request for the rest. */
  uri: string;
}

/** Confirm answers with the payment's status, as the status operation does. */
export type ConfirmResponse = PaymentStatus;

/** Cancel answers with the payment's status and what cancelled it. */
export interface CancelledPayment extends PaymentStatus {
  paymentId: string;
  cancelledReason: 'cancelled_by_merchant' | 'cancelled_by_user';
  /** ISO 8601. */
  cancelledAt: string;
}

/** `GET /v1/gateway/payment/{id}`: what a wallet shows before the buyer chooses an option (D10). */
export interface GatewayPayment {
  status: GatewayPaymentStatusValue;
  amount: FiatAmount;
  /** Unix seconds. */
  expiresAt: number;
  merchant: { name: string; iconUrl: string | null };
  buyer?: {
    accountCaip10: string;
    accountProviderName?: string;
    accountProviderIcon?: string;
  };
  /** paygate: while unpaid, each token in which less than asked arrived, and where the rest goes. */
  received?: ReceivedPart[];
  /** paygate: names what the buyer sees of the payment; `since` of a status long-poll. */
  version?: string;
}

/** A token a network accepts, as `GET /v1/networks` lists it. */
export interface AcceptedToken {
  /** CAIP-19 id, e.g. `eip155:8453/erc20:0x8335...`. */
  asset: string;
  symbol: string;
  name: string;
  decimals: number;
  method: string;
  /** ISO 4217 currency of a stablecoin paid at par. */
  peggedTo?: string;
}

/** A network the service follows, as `GET /v1/networks` lists it. */
export interface AcceptedNetwork {
  /** CAIP-2 id, e.g. `eip155:8453`. */
  id: string;
  name: string;
  confirmations: number;
  tokens: AcceptedToken[];
}

export interface NetworksResponse {
  networks: AcceptedNetwork[];
}
