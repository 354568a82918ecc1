import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { isPublicAddress } from '../net/addressPolicy.ts';

export interface SendOptions {
  /** Production: false. Tests only: true, to reach a local receiver. */
  allowPrivateHosts: boolean;
  /** PEM certificates trusted in addition to the system roots; tests use it for a self-signed receiver. */
  extraCaCertificates?: string[];
  /** DNS resolution; defaults to the system resolver returning every address of the name. */
  lookup?: (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;
  /** Budget of one attempt, from resolving the name to the response headers. */
  timeoutMs: number;
}

export type SendResult = { statusCode: number; durationMs: number } | { error: string; durationMs: number };

class RefusedTarget extends Error {
  override readonly name = 'RefusedTarget';
}

interface Address {
  address: string;
  family: 4 | 6;
}

async function resolveAllAddresses(hostname: string): Promise<Address[]> {
  const results = await dnsLookup(hostname, { all: true, verbatim: true });
  return results.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/** Resolves the host once; every address must be public (unless allowed otherwise), and only these are connected to. */
async function checkedAddresses(url: URL, options: SendOptions): Promise<Address[]> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const allowed = (address: string) => options.allowPrivateHosts || isPublicAddress(address);
  const literal = isIP(host);
  if (literal !== 0) {
    if (!allowed(host)) throw new RefusedTarget('the URL points to a private address');
    return [{ address: host, family: literal === 6 ? 6 : 4 }];
  }
  let resolved: Address[];
  try {
    resolved = await (options.lookup ?? resolveAllAddresses)(host);
  } catch {
    throw new RefusedTarget('the host name does not resolve');
  }
  if (resolved.length === 0) throw new RefusedTarget('the host name does not resolve');
  // One private address refuses the name: a name mixing internal and public records must not reach inside.
  if (resolved.some(({ address }) => isIP(address) === 0 || !allowed(address))) {
    throw new RefusedTarget('the host name resolves to a private address');
  }
  return resolved;
}

function pinnedLookup(addresses: Address[]): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    const [first] = addresses;
    if (lookupOptions.all) callback(null, addresses);
    else if (first) callback(null, first.address, first.family);
  };
}

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
        const addresses = await checkedAddresses(url, options);
        controller.signal.throwIfAborted();
        agent = new Agent({
          connect: {
            timeout: options.timeoutMs,
            lookup: pinnedLookup(addresses),
            ...(options.extraCaCertificates?.length
              ? { ca: [...rootCertificates, ...options.extraCaCertificates] }
              : {}),
          },
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
          connections: 1,
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
