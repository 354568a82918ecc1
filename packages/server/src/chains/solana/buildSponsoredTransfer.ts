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
  type Transaction,
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

/** What both a buyer's payment and a merchant's settlement send: one SPL transfer, the collector paying its fee. */
export interface SplTransferRequest {
  rpc: SolanaRpc;
  /** Fee payer, and payer of the recipient's token account rent when it is missing. */
  collector: string;
  /** Owner of the source token account, who signs the transfer (the collector itself for a settlement). */
  from: string;
  /** Owner of the destination token account. */
  to: string;
  mint: string;
  decimals: number;
  /** Token minor units. */
  amount: bigint;
  /** Names the payment or batch on chain. */
  memo: string;
  /** The mint's token program; the classic SPL Token program unless given. */
  tokenProgram?: string;
}

/**
 * A compiled transaction, with empty signature slots, that moves `amount` of `mint` between the owners' associated
 * token accounts, creating the recipient's when missing, with `memo`; the collector pays the fee.
 */
export async function buildSplTransfer(
  request: SplTransferRequest,
): Promise<{ transaction: Transaction; blockhash: string; lastValidBlockHeight: bigint }> {
  if (request.amount <= 0n) throw new RangeError('the transfer amount must be positive');
  const collector = address(request.collector);
  const from = address(request.from);
  const to = address(request.to);
  const mint = address(request.mint);
  const tokenProgram = address(request.tokenProgram ?? TOKEN_PROGRAM_ADDRESS);
  const [[source], [destination], { value: latest }] = await Promise.all([
    findAssociatedTokenPda({ owner: from, mint, tokenProgram }),
    findAssociatedTokenPda({ owner: to, mint, tokenProgram }),
    request.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send(),
  ]);

  // Signers here only mark who must sign; nothing is signed while building.
  const collectorSigner = createNoopSigner(collector);
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
            owner: to,
            mint,
            tokenProgram,
          }),
          getTransferCheckedInstruction(
            {
              source,
              mint,
              destination,
              authority: from === collector ? collectorSigner : createNoopSigner(from),
              amount: request.amount,
              decimals: request.decimals,
            },
            { programAddress: tokenProgram },
          ),
          // SPL Memo v3: the memo program wallets, explorers and both mainnet and the devnet know.
          getAddMemoInstruction({ memo: request.memo }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3 }),
        ],
        draft,
      ),
  );
  return {
    transaction: compileTransaction(message),
    blockhash: latest.blockhash,
    lastValidBlockHeight: latest.lastValidBlockHeight,
  };
}

/**
 * A transaction that moves `amount` of `mint` from the buyer's associated token account to the collector's, with
 * the collector paying the fee (so a buyer without SOL can pay) and creating its own token account when missing.
 */
export async function buildSponsoredTransfer(request: SponsoredTransferRequest): Promise<SponsoredTransfer> {
  const { transaction, blockhash, lastValidBlockHeight } = await buildSplTransfer({
    ...request,
    from: request.buyer,
    to: request.collector,
    memo: request.paymentId,
  });
  return {
    transactionBase64: getBase64EncodedWireTransaction(transaction),
    messageBytesBase64: getBase64Decoder().decode(transaction.messageBytes),
    blockhash,
    lastValidBlockHeight,
  };
}

/** The wallet action for a built transfer (D12, interface "Wallet rules for actions" 3). */
export function solanaSignTransactionAction(transfer: SponsoredTransfer): {
  method: 'solana_signTransaction';
  params: string;
} {
  return { method: 'solana_signTransaction', params: JSON.stringify([{ transaction: transfer.transactionBase64 }]) };
}
