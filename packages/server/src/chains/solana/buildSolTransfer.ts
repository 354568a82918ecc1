import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  lamports,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
} from '@solana/kit';
import { getAddMemoInstruction, LEGACY_MEMO_PROGRAM_ADDRESS_V3 } from '@solana-program/memo';
import { getTransferSolInstruction } from '@solana-program/system';
import type { SolanaRpc } from './rpc.ts';

/**
 * A compiled transaction, with an empty signature slot for the collector (fee payer and only signer), that moves
 * `amount` lamports from the collector to `to`, with `memo` naming the payout on chain.
 */
export async function buildSolTransfer(request: {
  rpc: SolanaRpc;
  collector: string;
  to: string;
  amount: bigint;
  memo: string;
}): Promise<{ transaction: Transaction; lastValidBlockHeight: bigint }> {
  if (request.amount <= 0n) throw new RangeError('the transfer amount must be positive');
  const collector = createNoopSigner(address(request.collector));
  const { value: latest } = await request.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayer(collector.address, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
    (draft) =>
      appendTransactionMessageInstructions(
        [
          getTransferSolInstruction({
            source: collector,
            destination: address(request.to),
            amount: lamports(request.amount),
          }),
          getAddMemoInstruction({ memo: request.memo }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3 }),
        ],
        draft,
      ),
  );
  return { transaction: compileTransaction(message), lastValidBlockHeight: latest.lastValidBlockHeight };
}
