import {
  type Address,
  address,
  decompileTransactionMessage,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  getTransactionEncoder,
  isAddress,
  type Transaction,
  verifySignature,
} from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { tokenAccountOf } from '../chains/solana/x402MerchantAccounts.ts';
import type { AppContext } from '../context.ts';
import { readingChain } from '../gateway/chainFailures.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import { X402_REASONS, X402Refusal } from './reasons.ts';
import { x402PayTo } from './x402PayTo.ts';
import { type CheckedX402Payment, checkRequirements, fiatOf, refuse, resourceUrlOf } from './x402Requirements.ts';
import type { FacilitatorRequest } from './x402Schemas.ts';

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;
const TRANSFER_CHECKED = 12;
/**
 * What the collector pays for at most, as fee payer: compute units (a TransferChecked and a memo use under 10,000;
 * x402's client asks 20,000) and their priority price (x402's client sets 1 microlamport).
 */
const MAX_COMPUTE_UNITS = 50_000;
const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 1_000_000n;
const MAX_MEMO_BYTES = 256;
/** A blockhash lands until 150 blocks after its own. */
const BLOCKHASH_LIFETIME_BLOCKS = 150n;

function decodeStrictBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0 || text.length === 0) return null;
  return new Uint8Array(getBase64Encoder().encode(text));
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** The payload's transaction, refused unless it decodes and encodes back to the same bytes. */
function decodedTransaction(payload: Record<string, unknown>): Transaction {
  const text = typeof payload.transaction === 'string' ? payload.transaction : '';
  const wire = decodeStrictBase64(text);
  let transaction: Transaction | null = null;
  try {
    transaction = wire && getTransactionDecoder().decode(wire);
  } catch {
    transaction = null;
  }
  if (!wire || !transaction || !bytesEqual(new Uint8Array(getTransactionEncoder().encode(transaction)), wire))
    refuse('svmUndecodable', 'payload.transaction is not a base64 Solana transaction');
  return transaction;
}

function littleEndian(data: ArrayLike<number>, from: number, length: number): bigint {
  let value = 0n;
  for (let index = length - 1; index >= 0; index--) value = (value << 8n) | BigInt(data[from + index] ?? 0);
  return value;
}

type Instruction = ReturnType<typeof decompileTransactionMessage>['instructions'][number];

/** The compute budget's two instructions, first, within what the collector pays for. */
function checkComputeBudget(limit: Instruction | undefined, price: Instruction | undefined): void {
  const limitData = limit?.data;
  if (
    limit?.programAddress !== COMPUTE_BUDGET_PROGRAM ||
    limitData?.length !== 5 ||
    limitData[0] !== SET_COMPUTE_UNIT_LIMIT
  )
    refuse('svmComputeLimit', 'the first instruction must set the compute unit limit');
  if (littleEndian(limitData, 1, 4) > BigInt(MAX_COMPUTE_UNITS))
    refuse('svmComputeLimitTooHigh', `the compute unit limit is above ${MAX_COMPUTE_UNITS}`);
  const priceData = price?.data;
  if (
    price?.programAddress !== COMPUTE_BUDGET_PROGRAM ||
    priceData?.length !== 9 ||
    priceData[0] !== SET_COMPUTE_UNIT_PRICE
  )
    refuse('svmComputePrice', 'the second instruction must set the compute unit price');
  if (littleEndian(priceData, 1, 8) > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS)
    refuse(
      'svmComputePriceTooHigh',
      `the compute unit price is above ${MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS} microlamports`,
    );
}

/** The payer's signature, valid over the message; every other slot (the collector's) left empty. */
async function payerSignature(transaction: Transaction, payer: Address, feePayer: Address): Promise<string> {
  const signers = Object.keys(transaction.signatures);
  if (signers.length !== 2 || signers[0] !== feePayer || signers[1] !== payer)
    refuse('svmSignatureInvalid', 'the transaction must be signed by the fee payer and the transfer authority only');
  const signature = transaction.signatures[payer];
  if (transaction.signatures[feePayer]) refuse('svmSignatureInvalid', "the fee payer's signature slot must be empty");
  if (!signature || !(await verifySignature(await getPublicKeyFromAddress(payer), signature, transaction.messageBytes)))
    refuse('svmSignatureInvalid', "the transfer authority's signature does not match the transaction");
  return getBase58Decoder().decode(signature);
}

/**
 * Checks an x402 `exact` payment on Solana for the merchant as far as it can be without the database, in x402's
 * terms: the requirements (`checkRequirements`, `payTo` the merchant's own owner, `x402PayTo`), the fee payer (the
 * collector, which must be `extra.feePayer`), and the transaction the agent signed: a compute unit limit and price
 * within what the collector pays for, one SPL `TransferChecked` of exactly the amount of the token to the merchant
 * owner's token account (so a payload made for one merchant pays no other), at most one memo, no other instruction,
 * nothing of the collector's in any instruction, and the agent's valid signature with the collector's slot empty.
 * Its `checkOnChain` simulates the transaction.
 */
export async function checkExactSvmPayment(
  ctx: AppContext,
  services: ChainServices,
  request: FacilitatorRequest,
  merchantId: string,
): Promise<CheckedX402Payment> {
  const collector = services.solana.collector.address;
  const payTo = x402PayTo(services, merchantId, 'solana');
  const { network, token, amount } = checkRequirements(ctx, request, {
    namespace: 'solana',
    payTo,
    payToMismatch: 'svmRecipientMismatch',
    isToken: (candidate, asset) => candidate.method === 'spl' && candidate.address === asset,
  });
  const solana = services.solana.networks.get(network.caip2);
  if (!solana) refuse('invalidNetwork', `this service takes no x402 payments on ${network.caip2}`);
  const feePayer = request.paymentRequirements.extra?.feePayer;
  if (typeof feePayer !== 'string') refuse('svmMissingFeePayer', 'extra.feePayer must name the fee payer');
  if (feePayer !== collector)
    refuse('svmFeePayerNotManaged', `the fee payer must be this service's collector ${collector}`);

  const transaction = decodedTransaction(request.paymentPayload.payload);
  let message: ReturnType<typeof decompileTransactionMessage>;
  try {
    message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(transaction.messageBytes));
  } catch {
    refuse('svmUndecodable', 'the transaction message cannot be read (address lookup tables are not taken)');
  }
  if (message.feePayer.address !== collector) refuse('svmFeePayerNotManaged', 'the collector must be the fee payer');
  const { instructions } = message;
  if (instructions.length < 3 || instructions.length > 4)
    refuse('svmInstructionsLength', 'the transaction must hold 3 or 4 instructions');
  checkComputeBudget(instructions[0], instructions[1]);
  const transfer = instructions[2] as Instruction;
  const data = transfer.data;
  const accounts = transfer.accounts ?? [];
  if (
    transfer.programAddress !== TOKEN_PROGRAM_ADDRESS ||
    data?.length !== 10 ||
    data[0] !== TRANSFER_CHECKED ||
    accounts.length !== 4
  )
    refuse('svmNoTransfer', 'the third instruction must be an SPL Token TransferChecked');
  const [, mint, destination, authority] = accounts.map((account) => account.address) as Address[];
  if (instructions.some((instruction) => instruction.accounts?.some((account) => account.address === collector)))
    refuse('svmFeePayerTransferring', 'the fee payer may not take part in any instruction');
  if (mint !== token.address) refuse('svmMintMismatch', `the transfer is of ${mint}, not ${token.address}`);
  const merchantTokenAccount = await tokenAccountOf(payTo, token.address);
  if (destination !== merchantTokenAccount)
    refuse(
      'svmRecipientMismatch',
      `the transfer pays ${destination}, not the merchant's token account ${merchantTokenAccount}`,
    );
  const transferred = littleEndian(data, 1, 8);
  if (transferred !== amount)
    refuse('svmAmountMismatch', `the transfer is of ${transferred}, the requirements ask ${amount}`);
  if (data[9] !== token.decimals) refuse('svmNoTransfer', `the transfer's decimals must be ${token.decimals}`);
  const memo = instructions[3];
  if (
    memo &&
    (memo.programAddress !== MEMO_PROGRAM ||
      (memo.accounts?.length ?? 0) > 0 ||
      (memo.data?.length ?? 0) > MAX_MEMO_BYTES)
  )
    refuse('svmUnknownFourth', 'a fourth instruction may only be a memo of at most 256 bytes');
  const payer = authority as Address;
  if (!isAddress(payer)) refuse('svmNoTransfer', 'the transfer has no authority');
  const signature = await payerSignature(transaction, payer, address(collector));

  // An upper bound: the blockhash is at most as old as the block height seen now.
  const blockHeight = await readingChain(network.caip2, () => solana.blockHeight());
  const lastValidBlockHeight = blockHeight + BLOCKHASH_LIFETIME_BLOCKS;
  const wire = getBase64EncodedWireTransaction(transaction);
  return {
    network,
    token,
    payer,
    merchantAddress: payTo,
    identity: { asset: token.caip19, payer, nonce: signature },
    signature,
    amount,
    fiat: fiatOf(token, amount),
    resourceUrl: resourceUrlOf(request),
    validUntil: new Date(ctx.clock.now().getTime() + Number(BLOCKHASH_LIFETIME_BLOCKS) * network.blockTimeMs),
    terms: { kind: 'x402_svm', transactionBase64: wire, lastValidBlockHeight: lastValidBlockHeight.toString() },
    // One simulation as the node would run it once co-signed: the blockhash, the payer's balance and the transfer.
    checkOnChain: async () => {
      const simulated = await readingChain(network.caip2, () =>
        solana.rpc.simulateTransaction(wire, { encoding: 'base64', sigVerify: false, commitment: 'confirmed' }).send(),
      );
      if (simulated.value.err)
        throw new X402Refusal(
          X402_REASONS.svmSimulationFailed,
          `the transaction would fail: ${JSON.stringify(simulated.value.err, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}`,
        );
      // The collector pays its fee out of the operator's funding: a settle it cannot cover is refused (503).
      await solana.sender.requireNetworkFeeFunded(transaction);
      return {};
    },
  };
}
