import { isSolanaError } from '@solana/kit';
import { BaseError } from 'viem';
import { ApiError } from '../http/errors.ts';

/**
 * Whether an error comes from a chain's RPC node (unreachable, refusing, answering with an error) rather than from
 * the request or this service: viem reports every transport and RPC failure as one of its errors, @solana/kit
 * its RPC errors as SolanaErrors, and a node it cannot reach as fetch's own TypeError.
 */
export function isChainRpcFailure(error: unknown): boolean {
  return (
    error instanceof BaseError ||
    isSolanaError(error) ||
    (error instanceof TypeError && error.message === 'fetch failed')
  );
}

export function chainUnavailable(networks: string[]): ApiError {
  return new ApiError(
    'bad_gateway',
    `The node of ${networks.join(', ')} did not answer as expected; try again shortly.`,
    { networks },
  );
}

/** Runs chain reads for `network`, answering 502 `bad_gateway` when its node fails. */
export async function readingChain<T>(network: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isChainRpcFailure(error)) throw chainUnavailable([network]);
    throw error;
  }
}
