/**
 * The server side of a checkout built on `@paygate/checkout`: a Fetch-API handler (Request -> Response) that forwards
 * to paygate what a buyer's page may call, and only that, adding the partner's key, which never reaches the page.
 * Mount it in Express, Fastify, Hono or a Next.js route handler.
 */

export interface CheckoutHandlerOptions {
  /** paygate's base URL (its `BASE_URL`). */
  baseUrl: string;
  /** The partner's API key: sent upstream as `Api-Key`, never returned. */
  apiKey: string;
  /** The path the handler is mounted under (e.g. `/api/checkout`); requests outside it are answered 404. */
  basePath?: string;
  /**
   * Whether this request may act on this payment, e.g. only payments the integrator's own store created for the
   * visitor's cart. Default: any payment of the key's merchants (what the payment link already allows anyone).
   */
  authorize?: (paymentId: string, request: Request) => boolean | Promise<boolean>;
  /** Pins the API version (`Pay-Version`). */
  apiVersion?: string;
  fetch?: typeof fetch;
}

type BuyerOperation = { method: 'GET' | 'POST'; paymentId: string | undefined; query: readonly string[] };

const PAYMENT_PATH = /^\/v1\/gateway\/payment\/(pay_[A-Za-z0-9_-]{1,128})(?:\/(options|fetch|confirm|status|cancel))?$/;
/** The operations a buyer's page uses, and the query parameters each may pass on. */
const SUB_OPERATIONS: Record<string, { method: 'GET' | 'POST'; query: readonly string[] }> = {
  '': { method: 'GET', query: [] },
  options: { method: 'POST', query: ['includePaymentInfo'] },
  fetch: { method: 'POST', query: [] },
  confirm: { method: 'POST', query: ['maxPollMs'] },
  status: { method: 'GET', query: ['maxPollMs', 'since'] },
  cancel: { method: 'POST', query: [] },
};
/** A confirm with a Solana transaction and buyer data is a few KB; nothing a buyer sends is near this. */
const MAX_BODY_BYTES = 64 * 1024;
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'retry-after', 'wcp-version'];

function errorResponse(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ code, message }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

function operationOf(path: string): BuyerOperation | undefined {
  if (path === '/v1/networks') return { method: 'GET', paymentId: undefined, query: [] };
  const match = PAYMENT_PATH.exec(path);
  if (!match) return undefined;
  const operation = SUB_OPERATIONS[match[2] ?? ''];
  return operation && { ...operation, paymentId: match[1] };
}

async function bodyOf(request: Request): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) return undefined;
  const bytes = new Uint8Array(await request.arrayBuffer());
  return bytes.byteLength > MAX_BODY_BYTES ? undefined : new TextDecoder().decode(bytes);
}

export function createCheckoutHandler(options: CheckoutHandlerOptions): (request: Request) => Promise<Response> {
  const upstream = new URL(options.baseUrl).href.replace(/\/+$/, '');
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;

  return async (request) => {
    const url = new URL(request.url);
    if (basePath && !url.pathname.startsWith(`${basePath}/`)) return errorResponse(404, 'not_found', 'Not found.');
    const operation = operationOf(url.pathname.slice(basePath.length));
    if (!operation) return errorResponse(404, 'not_found', 'Not found.');
    if (request.method !== operation.method) {
      return errorResponse(405, 'method_not_allowed', `Use ${operation.method}.`, { allow: operation.method });
    }
    if (operation.paymentId && options.authorize && !(await options.authorize(operation.paymentId, request))) {
      return errorResponse(403, 'forbidden', 'This payment is not yours to act on.');
    }

    const target = new URL(`${upstream}${url.pathname.slice(basePath.length)}`);
    for (const name of operation.query) {
      const value = url.searchParams.get(name);
      if (value !== null) target.searchParams.set(name, value);
    }
    const headers: Record<string, string> = { accept: 'application/json', 'api-key': options.apiKey };
    if (options.apiVersion) headers['pay-version'] = options.apiVersion;
    let body: string | undefined;
    if (operation.method === 'POST') {
      body = await bodyOf(request);
      if (body === undefined) return errorResponse(413, 'invalid_params', 'The request body is too large.');
      // A bodiless POST (cancel) is sent bodiless: the service refuses an empty body declared as JSON.
      if (body) headers['content-type'] = 'application/json';
      else body = undefined;
    }

    let answer: Response;
    try {
      answer = await fetchImpl(target, { method: operation.method, headers, body, signal: request.signal });
    } catch {
      return errorResponse(502, 'upstream_unavailable', 'The payment service did not answer.');
    }
    const forwarded = new Headers({ 'cache-control': 'no-store' });
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) forwarded.set(name, value);
    }
    return new Response(await answer.arrayBuffer(), { status: answer.status, headers: forwarded });
  };
}

function concatenated(chunks: readonly Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}

/** The parts of Node's `IncomingMessage` (Express's and Fastify's raw request) the adapter reads. */
export interface NodeRequest extends AsyncIterable<Uint8Array | string> {
  method?: string | undefined;
  url?: string | undefined;
  /** Express keeps the full path here when a router strips its mount path from `url`. */
  originalUrl?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** The parts of Node's `ServerResponse` the adapter writes, and watches for a buyer who left. */
export interface NodeResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: Uint8Array): unknown;
  once(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
}

/**
 * A Fetch-API handler as a Node listener: `http.createServer(nodeListener(checkout))`, Express's
 * `app.use(nodeListener(checkout))` (before any body parser, which would consume the body), or Fastify's
 * `reply.hijack(); nodeListener(checkout)(request.raw, reply.raw)`.
 */
export function nodeListener(
  handler: (request: Request) => Promise<Response>,
): (incoming: NodeRequest, outgoing: NodeResponse) => Promise<void> {
  return async (incoming, outgoing) => {
    const method = incoming.method ?? 'GET';
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
    }
    let body: Uint8Array<ArrayBuffer> | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of incoming) {
        const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
        size += bytes.byteLength;
        // Past the limit the rest is read and dropped, so the socket stays usable for the 413.
        if (size <= MAX_BODY_BYTES) chunks.push(bytes);
      }
      body = size > MAX_BODY_BYTES ? new Uint8Array(MAX_BODY_BYTES + 1) : concatenated(chunks, size);
    }
    // A buyer who leaves ends the call upstream too, rather than leave it held up to a long-poll's 25 s.
    const left = new AbortController();
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) left.abort();
    });
    const host = headers.get('host') ?? 'localhost';
    const request = new Request(new URL(incoming.originalUrl ?? incoming.url ?? '/', `http://${host}`), {
      method,
      headers,
      signal: left.signal,
      ...(body ? { body } : {}),
    });
    const response = await handler(request);
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answerHeaders[name] = value;
    });
    outgoing.writeHead(response.status, answerHeaders);
    outgoing.end(new Uint8Array(await response.arrayBuffer()));
  };
}
