import type { Transaction } from 'kysely';
import type { AccountId, Namespace } from '../../chains/caip.ts';
import type { TokenAmountQuote } from '../../chains/prices/priceSource.ts';
import type { ChainRegistry, NetworkInfo, PaymentMethod, TokenInfo } from '../../chains/registry.ts';
import type { FinalTransfer } from '../../chains/transferOutcomes.ts';
import type { AppContext } from '../../context.ts';
import type { ChainWatchKind, Database } from '../../db/schema.ts';
import type { PaymentRow } from '../../payments/paymentResource.ts';
import type { OptionRow } from '../optionLookup.ts';
import type { ChainServices } from '../chainServices.ts';
import type { OptionAction, OptionTerms, WalletResult, WalletRpcAction } from './terms.ts';

/** An (account, token) pair whose balance covers the quoted amount, about to be offered. */
export interface Candidate {
  account: AccountId;
  token: TokenInfo;
  quote: TokenAmountQuote;
  /** A Permit2 option whose allowance is short starts with an approval. */
  needsApproval: boolean;
}

/** A submission refused before anything was sent fails the payment with this code; null once handed on. */
export type Submission = { refused: string } | null;

/** What checking a confirm measured on the chain that its submission, moments later, can use instead of asking again. */
export interface ConfirmationCheck {
  /** The gas the relayed transaction needs, from the check's simulation of it. */
  gas?: bigint;
}

/** A transaction the buyer sent itself, which the network's follower watches for the payment. */
export interface BuyerTransaction {
  kind: ChainWatchKind;
  hash: string;
  /** The oldest block time that may hold it. */
  notBefore: Date;
}

/** A transfer to the collector a confirm refused: the sender's money, held for it once final. */
export interface RefusedTransfer {
  /** CAIP-2 network. */
  chain: string;
  hash: string;
  /** CAIP-10 account that sent it. */
  from: string;
  /** CAIP-19 asset and minor units it moved. */
  asset: string;
  amount: bigint;
  /** A block older than this cannot hold a transfer made for the option. */
  notBefore: Date;
}

/** What the end of one of a method's transfers does to its payment. */
export interface TransferPurpose {
  /** Whether landing pays the payment; otherwise it lets the payment's submission go on. */
  paysPayment: boolean;
  /** The failure code the payment gets when the transfer ends without landing. */
  failureCode(transfer: FinalTransfer): string;
}

/** The failure code of a transfer the service sent for a payment, ended without landing. */
export function sentTransferFailure(transfer: FinalTransfer): string {
  return transfer.status === 'expired' ? 'blockhash_expired' : 'transaction_failed';
}

/**
 * One way to pay (D11, D12): what an option offers and asks the buyer to sign or send, how a confirm of it is
 * checked, and how it is submitted. Registered under its terms' kind in `index.ts`.
 */
export interface PaymentMethodHandler<T extends OptionTerms> {
  kind: T['kind'];
  /** The namespace whose networks offer it, for their tokens of this `token.method`. */
  namespace: Namespace;
  tokenMethod: PaymentMethod;
  /** Journal purposes and watch kinds of the transfers that pay (or lead up to) its payments. */
  transfers: Record<string, TransferPurpose>;
  offer(
    services: ChainServices,
    network: NetworkInfo,
    candidate: Candidate,
    optionId: string,
    payment: PaymentRow,
  ): Promise<{ terms: T; actions: OptionAction[] }>;
  /**
   * Resolves the option's build action into wallet actions (the fetch operation), with the option's terms as they
   * stand after it; only methods that offer a build action have it.
   */
  build?(
    services: ChainServices,
    option: OptionRow<T>,
    paymentId: string,
  ): Promise<{ terms: T; actions: WalletRpcAction[] }>;
  /** Checks the buyer's results against the option's terms and the chain; nothing is written or sent. */
  verifyConfirmation(
    services: ChainServices,
    chains: ChainRegistry,
    option: OptionRow<T>,
    results: WalletResult[],
    now: Date,
  ): Promise<ConfirmationCheck>;
  /**
   * What a refused confirm's results moved into the collector all the same, made for this payment (or for no
   * option at all); null when they moved nothing there. Only methods whose buyer sends the transfer itself have it.
   */
  refusedTransfer?(
    services: ChainServices,
    chains: ChainRegistry,
    option: OptionRow<T>,
    results: WalletResult[],
  ): Promise<RefusedTransfer | null>;
  /** Claims for this payment, in the confirm's transaction, what the results spend that could pay another one. */
  claim?(trx: Transaction<Database>, paymentId: string, option: OptionRow<T>, results: WalletResult[]): Promise<void>;
  /** The transaction the buyer sent itself that the payment waits on, if the option has one. */
  buyerTransaction?(option: OptionRow<T>, results: WalletResult[]): BuyerTransaction | null;
  /**
   * Hands the accepted results to the chain layer, which journals and sends them; `values` holds one per action.
   * `check` is what the confirm measured, when this is its first submission in the confirming process.
   */
  submit(
    ctx: AppContext,
    services: ChainServices,
    paymentId: string,
    option: OptionRow<T>,
    values: string[],
    check?: ConfirmationCheck,
  ): Promise<Submission>;
}
