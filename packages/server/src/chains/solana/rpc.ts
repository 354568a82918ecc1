import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  type Rpc,
  type RpcTransport,
  type SolanaRpcApi,
} from '@solana/kit';
import { rpcUrlList } from '../registry.ts';
import { RpcEndpoints, transportFailure } from '../rpcEndpoints.ts';

/** A Solana JSON-RPC client; the same code talks to the devnet and to mainnet. */
export type SolanaRpc = Rpc<SolanaRpcApi>;

/** How long one URL has to answer a request before the next URL is asked. */
export const SOLANA_RPC_TIMEOUT_MS = 15_000;

export interface SolanaRpcOptions {
  /** The network named in log lines. */
  network?: string;
  timeoutMs?: number;
  coolDownMs?: number;
}

/** Rounds over the URLs after the first, when each failed: a provider's brief failures are not the caller's to see. */
const RETRY_ROUNDS = 2;
const RETRY_DELAY_MS = 150;
/** JSON-RPC "internal error": the node failed, not the request (another node, or this one a moment later, answers). */
const INTERNAL_ERROR = -32603;

/** The transport parses numbers as bigints: the code arrives as `-32603n`. */
function isInternalError(response: unknown): boolean {
  const code = (response as { error?: { code?: unknown } } | null)?.error?.code;
  return (typeof code === 'bigint' || typeof code === 'number') && Number(code) === INTERNAL_ERROR;
}

/**
 * Asks the URLs in order: a request goes to the first URL that is not resting and, when it fails for the URL's
 * own reasons (no connection, an HTTP error status, no answer within the timeout), to the next. A JSON-RPC error
 * is an answer and is returned as it is, but for an internal error, which is tried on the next URL too. A URL that
 * failed rests for a cool-down, then is asked first again. When every URL failed, the round is tried again after
 * 150 ms, then 300 ms, as viem's transport does on EVM (retrying is safe: a signed transaction lands once), unless
 * one of them timed out.
 */
function failoverTransport(endpoints: RpcEndpoints, timeoutMs: number): RpcTransport {
  const transports = endpoints.urls.map((url) => createDefaultRpcTransport({ url }));
  return async <TResponse>(config: Parameters<RpcTransport>[0]): Promise<TResponse> => {
    let lastError: unknown;
    let lastAnswer: { response: TResponse } | undefined;
    let timedOut = false;
    // A node that did not answer in time is not waited for again: the caller has waited long enough.
    for (let round = 0; round <= RETRY_ROUNDS && !timedOut; round++) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * 2 ** (round - 1)));
      for (const index of endpoints.order()) {
        const timeout = AbortSignal.timeout(timeoutMs);
        const signal = config.signal ? AbortSignal.any([config.signal, timeout]) : timeout;
        try {
          const response = await (transports[index] as RpcTransport)<TResponse>({ ...config, signal });
          endpoints.succeeded(index);
          if (!isInternalError(response)) return response;
          lastAnswer = { response };
        } catch (error) {
          if (config.signal?.aborted) throw error;
          const failure = timeout.aborted ? 'timed out' : transportFailure(error);
          if (!failure) throw error;
          timedOut ||= timeout.aborted;
          endpoints.failed(index, failure);
          lastError = error;
          lastAnswer = undefined;
        }
      }
    }
    if (lastAnswer) return lastAnswer.response;
    throw lastError;
  };
}

/** A client of one RPC URL, or of several separated by commas, tried in that order. */
export function solanaRpc(rpcUrl: string, options: SolanaRpcOptions = {}): SolanaRpc {
  const urls = rpcUrlList(rpcUrl);
  if (!urls.length) throw new Error('no Solana RPC URL');
  const endpoints = new RpcEndpoints(
    options.network ?? 'solana',
    urls,
    options.coolDownMs === undefined ? {} : { coolDownMs: options.coolDownMs },
  );
  return createSolanaRpcFromTransport(failoverTransport(endpoints, options.timeoutMs ?? SOLANA_RPC_TIMEOUT_MS));
}
