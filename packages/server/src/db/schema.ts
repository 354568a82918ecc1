import type { ColumnType, Generated } from 'kysely';

/**
 * What a buyer sent that did not simply pay the payment: less than asked (the payment waits for the rest until it
 * expires, then fails `underpaid`), more than asked (it succeeds; the excess is kept apart), after the payment
 * closed, a token the payment does not take, or a transfer to the collector whose confirm was refused (another
 * sender, another amount, no reference). Never silent: each is on the payment and has its webhook event.
 */
export const PAYMENT_EXCEPTION_TYPES = [
  'underpaid',
  'overpaid',
  'paid_late',
  'wrong_token',
  'refused',
  'held',
] as const;
export type PaymentExceptionType = (typeof PAYMENT_EXCEPTION_TYPES)[number];

/** One exception as the payment row keeps it (`payments.exceptions`). */
export interface PaymentException {
  /** Prefix `exc_`; an underpaid entry keeps its id while more arrives, and when it turns overpaid. */
  id: string;
  type: PaymentExceptionType;
  /** CAIP-2 id of the network. */
  network: string;
  /** CAIP-19 id of what was sent; a token no network lists has its `erc20:` id on that chain. */
  asset: string;
  /** Minor units: for `underpaid` everything received so far, for `overpaid` the excess, else the transfer's amount. */
  amount: string;
  /** For `underpaid`: what the payment asks for in that token. */
  expected?: string;
  /** The transfer (for `underpaid` the latest one). */
  txHash: string;
  /** CAIP-10 account that sent it. */
  from: string;
  /** When it was recorded, ISO 8601. */
  at: string;
  /** The refund that sends it back, once asked for. */
  refundId?: string;
  /** For `paid_late`: when the merchant accepted it as the payment, which then succeeded. ISO 8601. */
  acceptedAt?: string;
  /** How the buyer sent it (`Deposit address`, `Solana Pay`): the payment's wallet app if it fails underpaid. */
  provider?: string;
}

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export interface PartnersTable {
  id: string;
  name: string;
  pinned_version: string;
  /** Buyer data is asked above this fiat amount (D14); null: never. A null currency means the payment's own. */
  data_threshold_currency: string | null;
  data_threshold_amount: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: string;
  partner_id: string;
  display_prefix: string;
  secret_hash: string;
  scopes: string[];
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export interface AppsTable {
  id: string;
  partner_id: string;
  name: string;
  icon_url: string | null;
  created_at: CreatedAt;
}

export interface MerchantsTable {
  id: string;
  partner_id: string;
  name: string;
  email: string;
  status: Generated<'active' | 'inactive' | 'suspended'>;
  logo_file: string | null;
  /** The merchant's own buyer-data threshold, over the partner's unless `inherit` (D14). */
  data_threshold_override: Generated<'inherit' | 'never' | 'threshold'>;
  data_threshold_currency: string | null;
  data_threshold_amount: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  /** Set when the partner deletes the merchant: gone from listings and new payments, kept for its history. */
  deleted_at: ColumnType<Date | null, never, Date | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface LogosTable {
  file: string;
  content_type: string;
  bytes: Buffer;
  width: number;
  height: number;
  created_at: CreatedAt;
}

export interface CryptoSettlementsTable {
  id: string;
  merchant_id: string;
  asset: string;
  destination: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface FiatSettlementsTable {
  id: string;
  merchant_id: string;
  bank_type: string;
  status: string;
  created_at: CreatedAt;
}

export interface IdempotencyKeysTable {
  partner_id: string;
  scope: string;
  key: string;
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
  created_at: CreatedAt;
}

export interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: CreatedAt;
}

export type PaymentStatus = 'requires_action' | 'processing' | 'succeeded' | 'failed' | 'expired' | 'cancelled';

/** Where a payment came from (migrations 0042, 0057, 0059). */
export const PAYMENT_SOURCES = ['api', 'x402', 'payment_link', 'point_of_sale'] as const;
export type PaymentSource = (typeof PAYMENT_SOURCES)[number];
/** The sources of payments the service makes for a merchant, kept in `payments.origin` (migration 0060). */
export type PaymentOrigin = Extract<PaymentSource, 'payment_link' | 'point_of_sale'>;

export interface PaymentsTable {
  id: string;
  partner_id: string;
  merchant_id: string;
  reference_id: string;
  status: Generated<PaymentStatus>;
  failure_code: string | null;
  fiat_currency: string;
  /** Minor units; int8 arrives as a string. */
  fiat_value: ColumnType<string, string | bigint, string | bigint>;
  success_url: string | null;
  error_url: string | null;
  expires_at: Date;
  token_asset: string | null;
  token_symbol: string | null;
  network: string | null;
  token_value: string | null;
  buyer_account: string | null;
  buyer_provider_name: string | null;
  buyer_provider_icon: string | null;
  tx_hash: string | null;
  tx_nonce: string | null;
  fee_total: string | null;
  fee_fixed: string | null;
  fee_percentage: string | null;
  settlement_amount: string | null;
  settlement_tx_hash: string | null;
  settled_at: Date | null;
  /** The settlement batch that holds the payment (migration 0008). */
  settlement_batch_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** What the buyer sent that did not simply pay the payment (migration 0027); written as JSON text. */
  exceptions: ColumnType<PaymentException[], string | undefined, string>;
  /**
   * Whether its checkout page fixed a deposit quote or made a Solana Pay request, so its expiry waits for the follower
   * that reads such transfers (migrations 0038, 0039).
   */
  expiry_awaits_follower: ColumnType<boolean, boolean | undefined, boolean>;
  /**
   * Where the payment came from (migration 0042): a partner's create (`api`) or the x402 facilitator's settle; `api`
   * also for a payment with an `origin`, a source the release before this one knows.
   */
  source: ColumnType<PaymentSource, PaymentSource | undefined, never>;
  /** A payment link's visit or a point-of-sale charge, which the API shows as the payment's source (migration 0060). */
  origin: ColumnType<PaymentOrigin | null, PaymentOrigin | null | undefined, never>;
  /** The payment link whose visit made the payment (migration 0057). */
  payment_link_id: ColumnType<string | null, string | null | undefined, never>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A merchant's page that makes a payment per visit (migration 0057): one of `amount` or the bounds is set. */
export interface PaymentLinksTable {
  id: string;
  partner_id: string;
  merchant_id: string;
  currency: string;
  /** Fixed price in minor units (times the quantity chosen); int8 arrives as a string. */
  amount: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  /** Bounds and suggestion of a price the buyer chooses, minor units. */
  minimum_amount: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  maximum_amount: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  preset_amount: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  description: string;
  image_url: string | null;
  /** The most the buyer may choose of a fixed-price item; null: one, no choice. */
  max_quantity: number | null;
  active: ColumnType<boolean, boolean | undefined, boolean>;
  /** How many payments the link may hold: succeeded ones and open ones count. */
  max_uses: number | null;
  expires_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface WebhookEndpointsTable {
  id: string;
  partner_id: string;
  merchant_id: string | null;
  url: string;
  events: string[];
  /** The signing secret: kept as-is because every delivery is signed with it; never returned after creation. */
  secret: string;
  created_at: CreatedAt;
  deleted_at: Date | null;
}

export interface WebhookEventsTable {
  id: string;
  partner_id: string;
  merchant_id: string | null;
  type: string;
  /** The exact JSON body sent (and signed) on every delivery of the event. */
  body: string;
  /** The payment the event is about, its own or one of its refunds' (migration 0044). */
  payment_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

export interface WebhookDeliveriesTable {
  /** int8 identity; arrives as a string. */
  id: Generated<string>;
  event_id: string;
  endpoint_id: string;
  redelivery: Generated<boolean>;
  /** Id of the event's object (migration 0035): deliveries of one object to one endpoint go in order. */
  subject: ColumnType<string | null, string | null | undefined, string | null>;
  status: Generated<'pending' | 'succeeded' | 'failed' | 'cancelled'>;
  attempts: Generated<number>;
  first_attempt_at: Date | null;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  created_at: CreatedAt;
  completed_at: Date | null;
}

export interface WebhookAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  outcome: 'succeeded' | 'will_retry' | 'given_up';
  attempted_at: CreatedAt;
}

export interface EvmNoncesTable {
  chain: string;
  address: string;
  /** int8 arrives as a string. */
  next_nonce: ColumnType<string, string | bigint, string | bigint>;
}

/** A Solana transaction of the collector that no journal holds, accepted by the operator as sent (migration 0062). */
export interface CollectorAcceptedTransactionsTable {
  signature: string;
  network: string;
  accepted_at: Generated<Date>;
}

export type EvmTransactionStatus = 'recorded' | 'broadcast' | 'confirmed' | 'failed';

export interface EvmTransactionsTable {
  id: string;
  chain: string;
  from_address: string;
  nonce: ColumnType<string, string | bigint, string | bigint>;
  to_address: string;
  data: string;
  /** Wei; numeric arrives as a string. */
  value: ColumnType<string, string | bigint, string | bigint>;
  gas: ColumnType<string, string | bigint, string | bigint>;
  purpose: string;
  payment_id: string | null;
  status: ColumnType<EvmTransactionStatus, EvmTransactionStatus | undefined, EvmTransactionStatus>;
  mined_hash: string | null;
  receipt_block_number: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  receipt_block_hash: string | null;
  failure_reason: string | null;
  /** Wei the collector paid the network for it once mined: gas, and an L2's data fee (migration 0034). */
  fee_paid: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  /** When a confirmed deposit sweep's receipt was compared with the deposits it took (migration 0037). */
  reconciled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type EvmAttemptStatus = 'recorded' | 'broadcast' | 'mined' | 'replaced';

export interface EvmTransactionAttemptsTable {
  hash: string;
  transaction_id: string;
  max_fee_per_gas: ColumnType<string, string | bigint, string | bigint>;
  max_priority_fee_per_gas: ColumnType<string, string | bigint, string | bigint>;
  raw_transaction: string;
  status: ColumnType<EvmAttemptStatus, EvmAttemptStatus | undefined, EvmAttemptStatus>;
  created_at: CreatedAt;
  broadcast_at: Date | null;
}

export interface EvmUsedTransfersTable {
  chain: string;
  tx_hash: string;
  payment_id: string;
  created_at: CreatedAt;
}

/** An EIP-2612 permit held by the payment it was first accepted for (migration 0061). */
export interface Eip2612PermitsTable {
  chain: string;
  digest: string;
  payment_id: string;
  created_at: CreatedAt;
}

export type ChainWatchKind = 'native_payment' | 'permit2_approval' | 'refused_transfer';
export type ChainWatchStatus = 'pending' | 'confirmed' | 'failed' | 'expired';

/** A buyer's own transaction a payment waits on, found and followed by the network's follower. */
export interface ChainWatchesTable {
  chain: string;
  tx_hash: string;
  payment_id: string;
  kind: ChainWatchKind;
  not_before: Date;
  deadline: Date;
  status: ColumnType<ChainWatchStatus, ChainWatchStatus | undefined, ChainWatchStatus>;
  /** Set while the transaction is in a block that is not yet at the network's depth, and once final. */
  block_number: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  block_hash: string | null;
  failure_reason: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type SolanaTransactionStatus = 'recorded' | 'sent' | 'confirmed' | 'failed' | 'expired';

export interface SolanaTransactionsTable {
  /** int8 identity; arrives as a string. */
  id: Generated<string>;
  /** CAIP-2 id of the Solana network. */
  network: string;
  purpose: 'payment' | 'settlement' | 'refund' | 'inflow_return' | 'x402_pay_to_account' | 'x402_sweep';
  /** The payment (or settlement batch) id the transaction belongs to. */
  reference: string;
  /** The fee payer's signature: the transaction id, known before sending. */
  signature: string;
  /** The complete signed transaction in wire format, re-sent byte for byte. */
  wire_transaction: Buffer;
  blockhash: string;
  last_valid_block_height: ColumnType<string, string | bigint, string | bigint>;
  status: ColumnType<SolanaTransactionStatus, SolanaTransactionStatus | undefined, SolanaTransactionStatus>;
  send_attempts: ColumnType<number, number | undefined, number>;
  slot: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  error: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  first_sent_at: Date | null;
  completed_at: Date | null;
}

export interface PaymentOptionsTable {
  id: string;
  payment_id: string;
  account: string;
  asset: string;
  network: string;
  method: string;
  /** Token minor units; numeric arrives as a string. */
  amount: ColumnType<string, string | bigint, string | bigint>;
  quote_expires_at: Date | null;
  /** JSON written as text: the actions offered, exactly as the wallet received them. */
  actions: ColumnType<unknown, string, string>;
  /** JSON written as text: what the buyer must sign (an EIP-3009 authorisation, the built Solana transfer). */
  terms: ColumnType<unknown, string, string>;
  /** The payment was above its buyer-data threshold when this option was offered (D14). */
  requires_buyer_data: Generated<boolean>;
  created_at: CreatedAt;
}

/** Buyer data given for a payment, encrypted with AES-256-GCM; `scope` is a CAIP-10 account or `*` (any). */
export interface BuyerDataTable {
  payment_id: string;
  scope: string;
  source: 'form' | 'confirm';
  /** Which key encrypted the row: a fingerprint, never the key. */
  key_id: string;
  nonce: Buffer;
  ciphertext: Buffer;
  auth_tag: Buffer;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface PaymentConfirmationsTable {
  payment_id: string;
  option_id: string;
  results: ColumnType<unknown, string, string>;
  /** JSON written as text: the option's terms as this confirm checked them; the submission uses exactly these. */
  terms: ColumnType<unknown, string, string>;
  /** The wallet app that confirmed, when it called with App-Id. */
  provider_name: string | null;
  provider_icon: string | null;
  created_at: CreatedAt;
  /** Set once the submission did all it can (what is left waits on the chain); null while it is due. */
  submitted_at: Date | null;
  submission_attempts: Generated<number>;
  /** When a due submission may be taken next: a lease while one is under way, a backoff after one failed. */
  next_submission_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/**
 * Payment statistics per day: triggers on `payments` append deltas to `payment_stats_deltas`, folded into
 * `payment_daily_stats` in the background; the payment list's statistics sum both.
 */
export interface PaymentDailyStatsTable {
  merchant_id: string;
  day: Date;
  status: string;
  fiat_currency: string;
  token_symbol: string;
  network: string;
  payments: string;
  fiat_total: string;
}

export interface MerchantBuyersTable {
  merchant_id: string;
  buyer_account: string;
  payments: string;
}

/** Buyer accounts per token (upper case), network and stored status; '' where the payment has none (migration 0015). */
export interface PaymentBuyersTable {
  merchant_id: string;
  token_symbol: string;
  network: string;
  status: string;
  buyer_account: string;
  payments: string;
}

/** Wallet apps the service owns, by purpose (migration 0010). */
export interface ServiceAppsTable {
  purpose: string;
  app_id: string;
  created_at: CreatedAt;
}

export interface PartnerFeeSchedulesTable {
  partner_id: string;
  /** Decimal percent, e.g. `1.5`. */
  percentage: string;
  updated_at: UpdatedAt;
}

export interface PartnerFixedFeesTable {
  partner_id: string;
  currency: string;
  /** Minor units of the currency; int8 arrives as a string. */
  amount: ColumnType<string, string | bigint, string | bigint>;
}

export type SettlementBatchStatus = 'claimed' | 'sent' | 'confirmed' | 'failed';

export interface SettlementBatchesTable {
  id: string;
  merchant_id: string;
  /** CAIP-19 id of the token. */
  asset: string;
  network: string;
  /** CAIP-10 account, copied from the merchant's destination when the batch was made. */
  destination: string;
  amount: ColumnType<string, string | bigint, string | bigint>;
  /** Of the merchant's on-chain refunds in the asset, what this batch deducted from its payments (migration 0021). */
  refunds_deducted: ColumnType<string, string | bigint | undefined, string | bigint>;
  status: ColumnType<SettlementBatchStatus, SettlementBatchStatus | undefined, SettlementBatchStatus>;
  tx_hash: string | null;
  failure_reason: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  completed_at: Date | null;
}

export interface SettlementBatchPaymentsTable {
  batch_id: string;
  payment_id: string;
  amount: ColumnType<string, string | bigint, string | bigint>;
}

export type RefundMethod = 'recorded' | 'onchain';
export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export interface RefundsTable {
  id: string;
  partner_id: string;
  merchant_id: string;
  payment_id: string;
  method: RefundMethod;
  status: RefundStatus;
  fiat_currency: string;
  /** Minor units of the payment's currency; int8 arrives as a string. */
  fiat_value: ColumnType<string, string | bigint, string | bigint>;
  /** CAIP-19 id of the token the payment was paid in, when known. */
  token_asset: string | null;
  /** Minor units of that token. */
  token_value: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  /** CAIP-10 account an on-chain refund is sent to: the account that paid. */
  destination: string | null;
  tx_hash: string | null;
  failure_reason: string | null;
  /** The payment exception a refund sends back (migration 0029); such a refund has no fiat amount. */
  exception_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  completed_at: Date | null;
}

export interface SettlementShortfallsTable {
  asset: string;
  needed: ColumnType<string, string | bigint, string | bigint>;
  held: ColumnType<string, string | bigint, string | bigint>;
  observed_at: UpdatedAt;
}

/** One line of a balanced ledger entry (migration 0034): an account's change in one asset, never changed. */
export interface LedgerEntriesTable {
  id: Generated<string>;
  entry: string;
  account: string;
  asset: string;
  /** Minor units: a debit above zero, a credit below; numeric arrives as a string. */
  amount: ColumnType<string, string | bigint, never>;
  created_at: CreatedAt;
}

/** Who a console session or link is for: a partner (the dashboard) or the operator (the operator console). */
export type ConsoleAudience = 'partner' | 'operator';

/** A sign-in to the dashboard or the operator console (migration 0041); the cookie's secret is kept only hashed. */
export interface DashboardSessionsTable {
  id: string;
  token_hash: string;
  audience: ConsoleAudience;
  /** The partner a dashboard session acts for; null for the operator's. */
  partner_id: string | null;
  /** The API key signed in with, whose scopes the session has; null for a one-time link (every scope). */
  key_id: string | null;
  scopes: string[];
  csrf_token: string;
  created_at: CreatedAt;
  expires_at: Date;
  ended_at: Date | null;
}

/** A one-time sign-in link printed by `paygate dashboard-link` or `paygate operator-link` (migration 0041). */
export interface DashboardLinksTable {
  token_hash: string;
  audience: ConsoleAudience;
  partner_id: string | null;
  created_at: CreatedAt;
  expires_at: Date;
  used_at: Date | null;
}

/** A merchant's point-of-sale device (migration 0058): paired once by its token, then acting with its key. */
export interface PointOfSaleDevicesTable {
  id: string;
  partner_id: string;
  merchant_id: string;
  name: string;
  /** ISO 4217 code the device charges in. */
  currency: string;
  /** Tips the device offers, whole percents of the amount; empty: no tip. */
  tip_percents: number[];
  /** Null once claimed. */
  pairing_token_hash: string | null;
  pairing_expires_at: Date;
  /** Null until claimed. */
  key_hash: string | null;
  key_prefix: string | null;
  paired_at: Date | null;
  revoked_at: Date | null;
  created_at: CreatedAt;
}

/** A payment charged on a point-of-sale device (migration 0058); the payment's amount is base plus tip. */
export interface PointOfSaleChargesTable {
  payment_id: string;
  device_id: string;
  /** Minor units; int8 arrives as a string. */
  base_value: ColumnType<string, string | bigint, never>;
  tip_value: ColumnType<string, string | bigint, never>;
  note: string | null;
  created_at: Date;
}

/** A list of blocked addresses the operator loaded (migration 0059), under the hash of its addresses. */
export interface ScreeningListsTable {
  version: string;
  /** The file it was loaded from, as given. */
  source: string;
  entries: number;
  loaded_at: Generated<Date>;
}

/** One blocked address of a list: `eip155:<lower-case address>` or `solana:<address>`. */
export interface ScreeningListEntriesTable {
  version: string;
  address: string;
}

/** One account screened (migration 0059): where, with what answer, from which provider and list version. */
export interface ScreeningDecisionsTable {
  id: Generated<string>;
  /** CAIP-10, as screened. */
  account: string;
  step: string;
  payment_id: string | null;
  merchant_id: string | null;
  blocked: boolean;
  provider: string;
  list_version: string | null;
  reason: string | null;
  decided_at: Generated<Date>;
}

/** The EIP-3009 authorisation an x402 payment was paid with (migration 0042); one payment per authorisation. */
export interface X402PaymentsTable {
  payment_id: string;
  /** CAIP-19 id of the token. */
  asset: string;
  /** The authoriser's address, lower case. */
  payer: string;
  /** The authorisation's 32-byte nonce, lower-case hex. */
  nonce: string;
  /** The signature as the payload carried it: only the same payload may ask for the payment's outcome again. */
  signature: string;
  /** The resource the payment was for, as the payload names it. */
  resource_url: string | null;
  /**
   * The address the payload pays, lower case: on EVM networks the merchant's own (migration 0048); null where it pays
   * the collector (Solana).
   */
  pay_to: ColumnType<string | null, string | null | undefined, string | null>;
  /** Until when a settle waits for the payment's end; meanwhile another settle of the payload is refused at once. */
  waiting_until: Date | null;
  /** When a settle answered that the payment succeeded; only one settle of a payload is told so. */
  answered_at: Date | null;
  created_at: CreatedAt;
}

/** A transfer to the collector a confirm refused, until it is final and recorded as an exception (migration 0047). */
export interface RefusedTransfersTable {
  chain: string;
  tx_hash: string;
  payment_id: string;
  /** CAIP-10 account that sent it. */
  sender: string;
  /** CAIP-19 id of what it moved. */
  asset: string;
  /** Minor units. */
  amount: ColumnType<string, string | bigint, string | bigint>;
  reason: string;
  created_at: CreatedAt;
}

/** A transfer into the collector on an EVM network, as its follower read it at depth (migration 0049). */
export interface CollectorInflowsTable {
  id: string;
  chain: string;
  tx_hash: string;
  log_index: number;
  /** CAIP-19 id of what it moved. */
  asset: string;
  /** CAIP-10 account that sent it. */
  sender: string;
  /** Minor units. */
  amount: ColumnType<string, string | bigint, string | bigint>;
  block_number: ColumnType<string, string | bigint, string | bigint>;
  found_at: CreatedAt;
  /** Null until judged: held by one of the service's records, or unsolicited (owed to its sender). */
  outcome: 'recorded' | 'unsolicited' | null;
  judged_at: Date | null;
  /** When the operator kept an unsolicited inflow as its own funding. */
  kept_at: Date | null;
  /** Its sending back to its sender (migration 0050): the current try's state, null when never asked. */
  return_status: 'pending' | 'returned' | 'failed' | null;
  /** The number of the current try: the payout `<id>/<try>`. */
  return_try: ColumnType<number, number | undefined, number>;
  returned_tx_hash: string | null;
  return_failure: string | null;
  /** On Solana, the merchant's x402 token account it reached (migration 0056); null for the collector's own. */
  to_account: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface CollectorInflowCursorsTable {
  chain: string;
  next_block: ColumnType<string, string | bigint, string | bigint>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** The Solana collector-inflow follower's newest signature read, per account of the collector. */
export interface SolanaInflowCursorsTable {
  network: string;
  account: string;
  last_signature: string;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface Database {
  collector_inflows: CollectorInflowsTable;
  collector_inflow_cursors: CollectorInflowCursorsTable;
  solana_inflow_cursors: SolanaInflowCursorsTable;
  payments: PaymentsTable;
  refused_transfers: RefusedTransfersTable;
  partners: PartnersTable;
  api_keys: ApiKeysTable;
  apps: AppsTable;
  merchants: MerchantsTable;
  logos: LogosTable;
  crypto_settlements: CryptoSettlementsTable;
  fiat_settlements: FiatSettlementsTable;
  idempotency_keys: IdempotencyKeysTable;
  service_secrets: ServiceSecretsTable;
  service_apps: ServiceAppsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  evm_nonces: EvmNoncesTable;
  collector_accepted_transactions: CollectorAcceptedTransactionsTable;
  evm_transactions: EvmTransactionsTable;
  evm_transaction_attempts: EvmTransactionAttemptsTable;
  evm_used_transfers: EvmUsedTransfersTable;
  eip2612_permits: Eip2612PermitsTable;
  chain_watches: ChainWatchesTable;
  solana_transactions: SolanaTransactionsTable;
  payment_options: PaymentOptionsTable;
  payment_confirmations: PaymentConfirmationsTable;
  buyer_data: BuyerDataTable;
  partner_fee_schedules: PartnerFeeSchedulesTable;
  partner_fixed_fees: PartnerFixedFeesTable;
  settlement_batches: SettlementBatchesTable;
  settlement_batch_payments: SettlementBatchPaymentsTable;
  settlement_shortfalls: SettlementShortfallsTable;
  payment_daily_stats: PaymentDailyStatsTable;
  merchant_buyers: MerchantBuyersTable;
  payment_buyers: PaymentBuyersTable;
  payment_stats_deltas: PaymentDailyStatsTable;
  refunds: RefundsTable;
  ledger_entries: LedgerEntriesTable;
  dashboard_sessions: DashboardSessionsTable;
  dashboard_links: DashboardLinksTable;
  payment_links: PaymentLinksTable;
  point_of_sale_devices: PointOfSaleDevicesTable;
  point_of_sale_charges: PointOfSaleChargesTable;
  screening_lists: ScreeningListsTable;
  screening_list_entries: ScreeningListEntriesTable;
  screening_decisions: ScreeningDecisionsTable;
  x402_payments: X402PaymentsTable;
}
