import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getBase64Decoder,
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
import type { SolanaRpc } from './rpc.ts';

export interface SponsoredTransferRequest {
  rpc: SolanaRpc;
  /** The collector: fee payer, rent payer of its own token account, and recipient. */
  collector: string;
  buyer: string;
  mint: string;
  decimals: number;
  /** Token minor units. */
  amount: bigint;
  /** Written into the memo so the transfer names its payment on chain. */
  paymentId: string;
  /** The mint's token program; the classic SPL Token program unless given. */
  tokenProgram?: string;
}

export interface SponsoredTransfer {
  /** Wire-format transaction with empty signature slots, for `solana_signTransaction`. */
  transactionBase64: string;
  /** The exact message the buyer signs; the signed transaction must carry it byte for byte. */
  messageBytesBase64: string;
  blockhash: string;
  lastValidBlockHeight: bigint;
}

/**
 * A transaction that moves `amount` of `mint` from the buyer's associated token account to the collector's, with
 * the collector paying the fee (so a buyer without SOL can pay) and creating its own token account when missing.
 */
export async function buildSponsoredTransfer(request: SponsoredTransferRequest): Promise<SponsoredTransfer> {
  if (request.amount <= 0n) throw new RangeError('the transfer amount must be positive');
  const collector = address(request.collector);
  const buyer = address(request.buyer);
  const mint = address(request.mint);
  const tokenProgram = address(request.tokenProgram ?? TOKEN_PROGRAM_ADDRESS);
  const [[buyerTokenAccount], [collectorTokenAccount], { value: latest }] = await Promise.all([
    findAssociatedTokenPda({ owner: buyer, mint, tokenProgram }),
    findAssociatedTokenPda({ owner: collector, mint, tokenProgram }),
    request.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send(),
  ]);

  // Signers here only mark who must sign; nothing is signed while building.
  const collectorSigner = createNoopSigner(collector);
  const buyerSigner = createNoopSigner(buyer);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayer(collector, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
    (draft) =>
      appendTransactionMessageInstructions(
        [
          getCreateAssociatedTokenIdempotentInstruction({
            payer: collectorSigner,
            ata: collectorTokenAccount,
            owner: collector,
            mint,
            tokenProgram,
          }),
          getTransferCheckedInstruction(
            {
              source: buyerTokenAccount,
              mint,
              destination: collectorTokenAccount,
              authority: buyerSigner,
              amount: request.amount,
              decimals: request.decimals,
            },
            { programAddress: tokenProgram },
          ),
          // SPL Memo v3: the memo program wallets, explorers and both mainnet and the devnet know.
          getAddMemoInstruction({ memo: request.paymentId }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3 }),
        ],
        draft,
      ),
  );
  const transaction = compileTransaction(message);
  return {
    transactionBase64: getBase64EncodedWireTransaction(transaction),
    messageBytesBase64: getBase64Decoder().decode(transaction.messageBytes),
    blockhash: latest.blockhash,
    lastValidBlockHeight: latest.lastValidBlockHeight,
  };
}

/** The wallet action for a built transfer (D12, interface "Wallet rules for actions" 3). */
export function solanaSignTransactionAction(transfer: SponsoredTransfer): {
  method: 'solana_signTransaction';
  params: string;
} {
  return { method: 'solana_signTransaction', params: JSON.stringify([{ transaction: transfer.transactionBase64 }]) };
}
