import { isPublicAddress } from '../net/addressPolicy.ts';
import { guardedRequest } from '../net/guardedRequest.ts';
import type { HostRefusal, HostResolver } from '../net/pinnedConnection.ts';

export interface SendOptions {
  /** Production: false. Tests only: true, to reach a local receiver. */
  allowPrivateHosts: boolean;
  /** PEM certificates trusted in addition to the system roots; tests use it for a self-signed receiver. */
  extraCaCertificates?: string[];
  /** DNS resolution; defaults to the system resolver returning every address of the name. */
  lookup?: HostResolver;
  /** Budget of one attempt, from resolving the name to the response headers. */
  timeoutMs: number;
}

export type SendResult = { statusCode: number; durationMs: number } | { error: string; durationMs: number };

class RefusedTarget extends Error {
  override readonly name = 'RefusedTarget';
}

/** What a refused host is told, by the reason. */
const REFUSALS: Record<HostRefusal, string> = {
  private_literal: 'the URL points to a private address',
  unresolvable: 'the host name does not resolve',
  private_name: 'the host name resolves to a private address',
};

function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof RefusedTarget) return error.message;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_ABORTED' ||
    code === 'ABORT_ERR'
  ) {
    return `no response within ${timeoutMs / 1000} s`;
  }
  if (/CERT|SIGNATURE|ERR_TLS|ERR_SSL/.test(code)) return 'the receiver did not present a valid TLS certificate';
  return `the receiver could not be reached${code ? ` (${code})` : ''}`;
}

/**
 * POSTs one webhook request over HTTPS and reports the status code or why there is none. Never throws. Redirects
 * are not followed (a 3xx is a failed attempt); the response body is read and dropped.
 */
export async function sendWebhookRequest(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const url = new URL(target);
    if (url.protocol !== 'https:') throw new RefusedTarget('the URL is not HTTPS');
    const statusCode = await guardedRequest(
      url,
      { method: 'POST', headers, body },
      {
        isAllowed: (address) => options.allowPrivateHosts || isPublicAddress(address),
        lookup: options.lookup,
        extraCaCertificates: options.extraCaCertificates,
        timeoutMs: options.timeoutMs,
        connectTimeoutMs: options.timeoutMs,
        headersTimeoutMs: options.timeoutMs,
        bodyTimeoutMs: options.timeoutMs,
        timeoutError: () => Object.assign(new Error('timeout'), { code: 'ABORT_ERR' }),
        refuse: (reason) => new RefusedTarget(REFUSALS[reason]),
      },
      async (response) => {
        // A receiver may answer with a large or endless body; only the status matters.
        await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
        return response.statusCode;
      },
    );
    return { statusCode, durationMs: elapsed() };
  } catch (error) {
    return { error: describeError(error, options.timeoutMs), durationMs: elapsed() };
  }
}
