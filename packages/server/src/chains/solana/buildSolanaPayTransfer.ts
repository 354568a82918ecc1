import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  type Base64EncodedWireTransaction,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { getAddMemoInstruction, LEGACY_MEMO_PROGRAM_ADDRESS_V3 } from '@solana-program/memo';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { SolanaCollector } from './collectorKeyPair.ts';
import { maxNetworkFeeOf } from './networkFeeAllowance.ts';
import type { SolanaRpc } from './rpc.ts';

export interface SolanaPayTransferRequest {
  rpc: SolanaRpc;
  collector: SolanaCollector;
  /** The wallet's account: owner of the source token account and the one signer besides the collector. */
  account: string;
  mint: string;
  decimals: number;
  /** Token minor units. */
  amount: bigint;
  /** The request's reference key, added to the transfer as a read-only key that does not sign. */
  reference: string;
  /** Written into a memo before the transfer, so the transaction names its payment on chain. */
  memo: string;
}

export interface SolanaPayTransaction {
  /** Wire-format transaction, base64, signed by the collector; the account's signature slot is empty. */
  transactionBase64: Base64EncodedWireTransaction;
  /** The collector's signature: the transaction's id. */
  signature: string;
  lastValidBlockHeight: bigint;
  /** The most it can cost the collector as its fee payer (`maxNetworkFeeOf`), in lamports. */
  maxNetworkFee: bigint;
}

/**
 * The transaction a Solana Pay transaction request answers with, built like the sponsored transfer: the collector
 * pays the fee (and its own token account's rent when missing) and has signed; the account signs and sends it. The
 * transfer comes last and carries the reference, as a transfer request's transfer does, so the same follower and
 * checks find it.
 */
export async function buildSolanaPayTransfer(request: SolanaPayTransferRequest): Promise<SolanaPayTransaction> {
  if (request.amount <= 0n) throw new RangeError('the transfer amount must be positive');
  const collector = address(request.collector.address);
  const account = address(request.account);
  const mint = address(request.mint);
  const tokenProgram = TOKEN_PROGRAM_ADDRESS;
  const [[source], [destination], { value: latest }] = await Promise.all([
    findAssociatedTokenPda({ owner: account, mint, tokenProgram }),
    findAssociatedTokenPda({ owner: collector, mint, tokenProgram }),
    request.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send(),
  ]);
  const collectorSigner = createNoopSigner(collector);
  const transfer = getTransferCheckedInstruction({
    source,
    mint,
    destination,
    authority: createNoopSigner(account),
    amount: request.amount,
    decimals: request.decimals,
  });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayer(collector, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
    (draft) =>
      appendTransactionMessageInstructions(
        [
          getCreateAssociatedTokenIdempotentInstruction({
            payer: collectorSigner,
            ata: destination,
            owner: collector,
            mint,
            tokenProgram,
          }),
          getAddMemoInstruction({ memo: request.memo }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3 }),
          {
            ...transfer,
            accounts: [...transfer.accounts, { address: address(request.reference), role: AccountRole.READONLY }],
          },
        ],
        draft,
      ),
  );
  const signed = await partiallySignTransaction([request.collector.keyPair], compileTransaction(message));
  return {
    transactionBase64: getBase64EncodedWireTransaction(signed),
    signature: getSignatureFromTransaction(signed),
    lastValidBlockHeight: latest.lastValidBlockHeight,
    maxNetworkFee: maxNetworkFeeOf(signed, collector),
  };
}
