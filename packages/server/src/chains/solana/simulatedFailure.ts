import type { Base64EncodedWireTransaction } from '@solana/kit';
import type { SolanaRpc } from './rpc.ts';

const PROGRAM_ERROR_LOG = 'Program log: Error: ';
const PROGRAM_FAILED_LOG = ' failed: ';
/** Enough for any program's error message, short enough for a wallet to show. */
const MAX_REASON_LENGTH = 200;

/**
 * Why the transaction would fail if it were sent now, from a simulation at `commitment`; null when it would succeed.
 * Signatures are not checked, as the wallet has yet to sign, and the node puts its newest blockhash in, so a node
 * that has not seen the transaction's own blockhash yet does not fail it for that.
 */
export async function simulatedFailure(
  rpc: SolanaRpc,
  transaction: Base64EncodedWireTransaction,
  commitment: 'confirmed' | 'finalized',
): Promise<string | null> {
  const { value } = await rpc
    .simulateTransaction(transaction, {
      encoding: 'base64',
      sigVerify: false,
      replaceRecentBlockhash: true,
      commitment,
    })
    .send();
  return value.err === null ? null : failureReason(value.err, value.logs ?? []);
}

/** The failure in a few words: the failing program's own error message, else the runtime's, else the error. */
function failureReason(error: unknown, logs: readonly string[]): string {
  const programError = logs.findLast((line) => line.startsWith(PROGRAM_ERROR_LOG));
  const programFailed = logs.findLast((line) => line.includes(PROGRAM_FAILED_LOG));
  const reason = programError
    ? programError.slice(PROGRAM_ERROR_LOG.length)
    : programFailed
      ? programFailed.slice(programFailed.indexOf(PROGRAM_FAILED_LOG) + PROGRAM_FAILED_LOG.length)
      : JSON.stringify(error, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  return reason.slice(0, MAX_REASON_LENGTH);
}
