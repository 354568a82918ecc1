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

/**
 * Asks the URLs in order: a request goes to the first URL that is not resting and, when it fails for the URL's
 * own reasons (no connection, an HTTP error status, no answer within the timeout), to the next. A JSON-RPC error
 * is an answer and is returned as it is. A URL that failed rests for a cool-down, then is asked first again.
 */
function failoverTransport(endpoints: RpcEndpoints, timeoutMs: number): RpcTransport {
  const transports = endpoints.urls.map((url) => createDefaultRpcTransport({ url }));
  return async <TResponse>(config: Parameters<RpcTransport>[0]): Promise<TResponse> => {
    let lastError: unknown;
    for (const index of endpoints.order()) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = config.signal ? AbortSignal.any([config.signal, timeout]) : timeout;
      try {
        const response = await (transports[index] as RpcTransport)<TResponse>({ ...config, signal });
        endpoints.succeeded(index);
        return response;
      } catch (error) {
        if (config.signal?.aborted) throw error;
        const failure = timeout.aborted ? 'timed out' : transportFailure(error);
        if (!failure) throw error;
        endpoints.failed(index, failure);
        lastError = error;
      }
    }
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
