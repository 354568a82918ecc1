import { IDEMPOTENT_OPERATIONS } from './generated/idempotentOperations.ts';
import { backoffMs, parseRetryAfterMs, type RetryPolicy } from './retryPolicy.ts';

/** No answer at all from the service (refused, reset, DNS, TLS...), after every attempt the policy allowed. */
export class PaygateNetworkError extends Error {
  override readonly name = 'PaygateNetworkError';
  constructor(
    readonly attempts: number,
    options: { cause: unknown },
  ) {
    super(
      `no answer from the paygate API after ${attempts} attempt(s): ${String((options.cause as Error)?.message ?? options.cause)}`,
      options,
    );
  }
}

/** Methods whose repetition has the effect of one request (RFC 9110), safe to send again after any failure. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const OPERATION_PATTERNS = IDEMPOTENT_OPERATIONS.map((operation) => {
  const [method, template] = operation.split(' ') as [string, string];
  const path = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return { method, path: new RegExp(`${path}$`) };
});

/** True when the service deduplicates this request by its Idempotency-Key. */
export function takesIdempotencyKey(method: string, pathname: string): boolean {
  return OPERATION_PATTERNS.some((pattern) => pattern.method === method && pattern.path.test(pathname));
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface PaygateFetchOptions {
  policy: RetryPolicy;
  /** The fetch to send with; the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Makes a new idempotency key; `crypto.randomUUID` by default. */
  newIdempotencyKey?: () => string;
}

/**
 * A fetch for the paygate API that makes a request's retries safe:
 * - an operation that takes an `Idempotency-Key` gets one (unless the caller set one): a new key per call, the
 *   same on every retry of that call, so the service performs it once however often it is sent;
 * - a request is sent again on no answer at all and on 5xx only when repeating it is safe (an idempotent method,
 *   or an idempotency key the service honours), with exponential backoff and jitter;
 * - a 429 that says when (`Retry-After`) is sent again after that wait, whatever the request: the service refused
 *   it without acting;
 * - any other 4xx is answered at once, as is everything once the retries are spent.
 * The caller's `AbortSignal` stops waiting and sending at once.
 */
export function paygateFetch(options: PaygateFetchOptions): (request: Request) => Promise<Response> {
  const { policy } = options;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const newKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  return async (request) => {
    const method = request.method.toUpperCase();
    const headers = new Headers(request.headers);
    const keyed = takesIdempotencyKey(method, new URL(request.url).pathname);
    if (keyed && !headers.has('idempotency-key')) headers.set('idempotency-key', newKey());
    const repeatable = IDEMPOTENT_METHODS.has(method) || keyed;
    // Read once: every attempt sends the same bytes.
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const { signal } = request;
    const attempt = () => send(new Request(request.url, { method, headers, body, signal, redirect: request.redirect }));

    for (let retry = 1; ; retry++) {
      const last = retry > policy.retries;
      let response: Response;
      try {
        response = await attempt();
      } catch (error) {
        if (signal.aborted || !repeatable) throw error;
        if (last) throw new PaygateNetworkError(retry, { cause: error });
        await sleep(backoffMs(policy, retry), signal);
        continue;
      }
      if (last) return response;
      let waitMs: number | undefined;
      if (response.status === 429) {
        const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'));
        if (retryAfterMs !== undefined && retryAfterMs <= policy.maxRetryAfterMs) waitMs = retryAfterMs;
      } else if (response.status >= 500 && repeatable) {
        waitMs = backoffMs(policy, retry);
      }
      if (waitMs === undefined) return response;
      await response.body?.cancel();
      await sleep(waitMs, signal);
    }
  };
}
