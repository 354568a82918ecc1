import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import {
  fetchMint,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { parseMinorUnits } from '@paygate/client/money';
import { type ParsedTransferRequest, parseTransferRequestUri } from '../../src/solanaPay/transferRequestUri.ts';

/** One SPL transfer as a wallet makes it from a transfer request; `amount` in minor units overrides the request's. */
export interface WalletTransfer {
  request: ParsedTransferRequest;
  amount?: bigint;
  /** Another mint than the request's (a wrong-token payment). */
  mint?: string;
}

/**
 * Pays transfer requests as a plain Solana wallet does, with nothing of paygate's: reads the mint's decimals,
 * creates the recipient's associated token account when missing, and transfers with `TransferChecked`, the
 * request's references added to the transfer instruction as read-only keys that do not sign. Several requests
 * make one transaction with a transfer each. Returns the signature once the node accepted it.
 */
export async function payAsWallet(rpcUrl: string, secretKey: string, transfers: WalletTransfer[]): Promise<string> {
  const rpc = createSolanaRpc(rpcUrl);
  const signer = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(secretKey)));
  const instructions: Instruction[] = [];
  for (const transfer of transfers) {
    const { request } = transfer;
    if (!request.splToken || !request.amount) throw new Error('not an SPL transfer request');
    const mint = address(transfer.mint ?? request.splToken);
    const recipient = address(request.recipient);
    const { data: mintAccount } = await fetchMint(rpc, mint);
    const decimals = mintAccount.decimals;
    const amount = transfer.amount ?? parseMinorUnits(request.amount, decimals);
    if (amount === null) throw new Error(`unreadable amount ${request.amount}`);
    const [[source], [destination]] = await Promise.all([
      findAssociatedTokenPda({ owner: signer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
      findAssociatedTokenPda({ owner: recipient, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
    ]);
    const transferInstruction = getTransferCheckedInstruction({
      source,
      mint,
      destination,
      authority: signer,
      amount,
      decimals,
    });
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({ payer: signer, ata: destination, owner: recipient, mint }),
      {
        ...transferInstruction,
        accounts: [
          ...transferInstruction.accounts,
          ...request.references.map((reference) => ({ address: address(reference), role: AccountRole.READONLY })),
        ],
      },
    );
  }
  return sendAsWallet(rpcUrl, signer, instructions);
}

/** Signs `instructions` as a wallet does, `signer` paying the fee, and sends them; the signature once the node took it. */
export async function sendAsWallet(
  rpcUrl: string,
  signer: KeyPairSigner,
  instructions: Instruction[],
): Promise<string> {
  const rpc = createSolanaRpc(rpcUrl);
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(signer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await rpc
    .sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' })
    .send();
  return getSignatureFromTransaction(signed);
}

/** The path of the payment's Solana Pay transaction request in `mint`, read from its checkout page as a wallet finds it. */
export async function transactionRequestPathOnPage(gatewayUrl: string, mint: string): Promise<string> {
  const page = await (await fetch(gatewayUrl)).text();
  const reference = [...page.matchAll(/value="(solana:[^"]+)"/g)]
    .map((match) => parseTransferRequestUri((match[1] as string).replaceAll('&amp;', '&')))
    .find((parsed) => parsed?.splToken === mint)?.references[0];
  if (!reference) throw new Error(`no Solana Pay request in ${mint} on ${gatewayUrl}`);
  return `/v1/solana-pay/requests/${reference}`;
}
