import { rootCertificates } from 'node:tls';
import { type Agent, request } from 'undici';
import { isPublicAddress } from '../net/addressPolicy.ts';
import { allowedAddresses, type HostRefusal, type HostResolver, pinnedAgent } from '../net/pinnedConnection.ts';

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
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // Racing the deadline also bounds DNS resolution, which the request's signal does not cover.
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = Object.assign(new Error('timeout'), { code: 'ABORT_ERR' });
      controller.abort(error);
      reject(error);
    }, options.timeoutMs);
  });
  let agent: Agent | undefined;
  try {
    const statusCode = await Promise.race([
      (async () => {
        const url = new URL(target);
        if (url.protocol !== 'https:') throw new RefusedTarget('the URL is not HTTPS');
        const addresses = await allowedAddresses(
          url,
          {
            isAllowed: (address) => options.allowPrivateHosts || isPublicAddress(address),
            ...(options.lookup ? { lookup: options.lookup } : {}),
          },
          (reason) => new RefusedTarget(REFUSALS[reason]),
        );
        controller.signal.throwIfAborted();
        agent = pinnedAgent(addresses, {
          connectTimeoutMs: options.timeoutMs,
          headersTimeoutMs: options.timeoutMs,
          bodyTimeoutMs: options.timeoutMs,
          ca: options.extraCaCertificates?.length ? [...rootCertificates, ...options.extraCaCertificates] : undefined,
        });
        const response = await request(url, {
          dispatcher: agent,
          method: 'POST',
          headers,
          body,
          signal: controller.signal,
        });
        // A receiver may answer with a large or endless body; only the status matters.
        await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
        return response.statusCode;
      })(),
      deadline,
    ]);
    return { statusCode, durationMs: elapsed() };
  } catch (error) {
    return { error: describeError(error, options.timeoutMs), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
    void agent?.destroy().catch(() => {});
  }
}
