import type { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import { type Dispatcher, request } from 'undici';
import { allowedAddresses, type HostRefusal, type HostResolver, pinnedAgent } from './pinnedConnection.ts';

/** The caller's rules for one outgoing request: whom it may reach, how long each step may take, what it throws. */
export interface GuardedRequestPolicy {
  /** Whether the connection may go to this address; every address a host name resolves to must pass. */
  isAllowed: (address: string) => boolean;
  /** DNS resolution; defaults to the system resolver returning every address of the name. */
  lookup?: HostResolver | undefined;
  /** PEM certificates trusted in addition to the system roots. */
  extraCaCertificates?: string[] | undefined;
  /** Budget of the whole exchange, DNS resolution and redirects included. */
  timeoutMs: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  /** Longest pause between two pieces of the body. */
  bodyTimeoutMs: number;
  /** Thrown when the budget runs out. */
  timeoutError: () => Error;
  /** Thrown for a host that may not be reached. */
  refuse: (reason: HostRefusal) => Error;
  /**
   * Where a 3xx answer leads, for a caller that follows redirects: it counts them (`followed` so far), checks the
   * target and throws to stop. Without it a 3xx answer goes to `read` like any other.
   */
  redirectTarget?: (from: URL, response: Dispatcher.ResponseData, followed: number) => URL;
}

export interface OutgoingRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Sends `outgoing` to `url` and hands the answer to `read` while its connection is open; returns what `read` returns.
 * Every hop's host is resolved once, every address it has must be allowed, and the connection is pinned to those
 * addresses, so neither a redirect nor a second DNS answer (rebinding) reaches a refused one.
 */
export async function guardedRequest<T>(
  url: URL,
  outgoing: OutgoingRequest,
  policy: GuardedRequestPolicy,
  read: (response: Dispatcher.ResponseData) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // Racing the deadline also bounds DNS resolution, which the request's signal does not cover.
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = policy.timeoutError();
      controller.abort(error);
      reject(error);
    }, policy.timeoutMs);
  });
  try {
    return await Promise.race([exchange(url, outgoing, policy, controller.signal, read), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function exchange<T>(
  start: URL,
  outgoing: OutgoingRequest,
  policy: GuardedRequestPolicy,
  signal: AbortSignal,
  read: (response: Dispatcher.ResponseData) => Promise<T>,
): Promise<T> {
  const { extraCaCertificates, lookup } = policy;
  const ca = extraCaCertificates?.length ? [...rootCertificates, ...extraCaCertificates] : undefined;
  let url = start;
  for (let followed = 0; ; followed += 1) {
    const addresses = await allowedAddresses(
      url,
      { isAllowed: policy.isAllowed, ...(lookup ? { lookup } : {}) },
      policy.refuse,
    );
    signal.throwIfAborted();
    const agent = pinnedAgent(addresses, {
      connectTimeoutMs: policy.connectTimeoutMs,
      headersTimeoutMs: policy.headersTimeoutMs,
      bodyTimeoutMs: policy.bodyTimeoutMs,
      ca,
    });
    try {
      const response = await request(url, {
        dispatcher: agent,
        method: outgoing.method,
        headers: outgoing.headers,
        ...(outgoing.body === undefined ? {} : { body: outgoing.body }),
        signal,
      });
      if (policy.redirectTarget && REDIRECT_STATUSES.has(response.statusCode)) {
        discardBody(response.body);
        url = policy.redirectTarget(url, response, followed);
        continue;
      }
      return await read(response);
    } finally {
      // Closed in the background: the answer is already read, and a slow close must not make it a failed attempt.
      agent.destroy().catch(() => {});
    }
  }
}

/** Drops a body that will not be read; undici reports destroying an unread body as an 'error' event, which is expected. */
export function discardBody(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}
