import { PAYMENT_ID_PATTERN } from './paymentLink.ts';
import type {
  Action,
  CancelledPayment,
  ConfirmRequest,
  ConfirmResponse,
  FetchActionsRequest,
  FetchActionsResponse,
  GatewayPayment,
  GetOptionsRequest,
  LongPollOptions,
  NetworksResponse,
  OptionsResponse,
  PaymentStatus,
  StatusPollOptions,
  WalletRpcAction,
} from './gatewayTypes.ts';

/**
 * `Api-Key` (a partner's secret key; backend use only), a public wallet app id plus a client id (D2), or `proxy`: no
 * credential, for a `baseUrl` whose server adds it (a checkout's own route, e.g. `@paygate/checkout/server`).
 */
export type GatewayAuth = { apiKey: string } | { appId: string; clientId: string } | 'proxy';

export interface RetryOptions {
  /** Retries after the first attempt, shared by 5xx, network failures and 429. Default 3. */
  retries?: number;
  /** First backoff delay; it doubles on each retry and gets random jitter on top. Default 100 ms. */
  initialDelayMs?: number;
  /** Upper bound on a 429 `Retry-After` wait. Default 10 000 ms. */
  maxRetryAfterMs?: number;
}

export interface GatewayClientOptions {
  /** The service's `BASE_URL` (D1); `/v1/gateway/...` is appended. */
  baseUrl: string;
  auth: GatewayAuth;
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /** Sent as `Pay-Version` to pin the API version. */
  apiVersion?: string;
}

export interface GatewayErrorIssue {
  field: string;
  message: string;
}

/** A response the client could not use: a non-2xx answer (with the service's error body) or a malformed 2xx body. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly status: number;
  /** Machine-readable code from the error body; `http_error` when the body was not an error body, `invalid_response` for malformed 2xx bodies. */
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly issues: GatewayErrorIssue[] | undefined;
  /** For 429: the server's `Retry-After`, in milliseconds, when given. */
  readonly retryAfterMs: number | undefined;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: Record<string, unknown>;
    issues?: GatewayErrorIssue[];
    retryAfterMs?: number;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.issues = init.issues;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** No response at all (connection refused or reset, DNS failure...) after every retry. */
export class GatewayNetworkError extends Error {
  override readonly name = 'GatewayNetworkError';

  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

interface ReceivedResponse {
  status: number;
  headers: Headers;
  text: string;
}

interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Checks and reshapes a 2xx body; throws a GatewayError when it is malformed. */
  normalise?: (body: unknown, status: number) => unknown;
  signal?: AbortSignal | undefined;
}

const DEFAULT_RETRIES = 3;
const DEFAULT_INITIAL_DELAY_MS = 100;
const DEFAULT_MAX_RETRY_AFTER_MS = 10_000;

/**
 * Client for the wallet-side gateway. Retries only where a repeat is safe and may help: 5xx, network
 * failures and 429 (after `Retry-After`); never other 4xx. Confirm is retried too, because the service
 * never submits the same results twice (D10).
 */
export class GatewayClient {
  readonly #baseUrl: string;
  readonly #authHeaders: Record<string, string>;
  readonly #fetch: typeof fetch;
  readonly #retries: number;
  readonly #initialDelayMs: number;
  readonly #maxRetryAfterMs: number;

  constructor(options: GatewayClientOptions) {
    const base = new URL(options.baseUrl);
    this.#baseUrl = base.href.replace(/\/+$/, '');
    this.#authHeaders = authHeaders(options.auth, options.apiVersion);
    // Called unbound: browsers reject `fetch` invoked with a `this` other than the global object.
    const fetchImpl = options.fetch ?? globalThis.fetch;
    this.#fetch = (input, init) => fetchImpl(input, init);
    this.#retries = nonNegativeInteger(options.retry?.retries ?? DEFAULT_RETRIES, 'retry.retries');
    this.#initialDelayMs = nonNegativeInteger(
      options.retry?.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS,
      'retry.initialDelayMs',
    );
    this.#maxRetryAfterMs = nonNegativeInteger(
      options.retry?.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS,
      'retry.maxRetryAfterMs',
    );
  }

  /** `GET /v1/gateway/payment/{id}`: display details of a payment. */
  async getPayment(paymentId: string): Promise<GatewayPayment> {
    return (await this.#request({ method: 'GET', path: paymentPath(paymentId) })) as GatewayPayment;
  }

  /** `GET /v1/networks`: the networks and tokens the service accepts, to ask for options on each of them. */
  async getNetworks(): Promise<NetworksResponse> {
    return (await this.#request({ method: 'GET', path: '/v1/networks' })) as NetworksResponse;
  }

  /** `POST /v1/gateway/payment/{id}/options`: the ways the given accounts can pay. */
  async getOptions(paymentId: string, request: GetOptionsRequest): Promise<OptionsResponse> {
    const body: { accounts: string[]; refresh?: string[] } = { accounts: request.accounts };
    if (request.refresh !== undefined) body.refresh = request.refresh;
    return (await this.#request({
      method: 'POST',
      path: `${paymentPath(paymentId)}/options`,
      query: { includePaymentInfo: request.includePaymentInfo?.toString() },
      body,
      normalise: normaliseOptionsResponse,
    })) as OptionsResponse;
  }

  /** `POST /v1/gateway/payment/{id}/fetch`: resolve a `build` action into walletRpc actions. */
  async fetchActions(paymentId: string, request: FetchActionsRequest): Promise<FetchActionsResponse> {
    return (await this.#request({
      method: 'POST',
      path: `${paymentPath(paymentId)}/fetch`,
      body: { optionId: request.optionId, data: request.data },
      normalise: normaliseFetchResponse,
    })) as FetchActionsResponse;
  }

  /** `POST /v1/gateway/payment/{id}/confirm`: submit the action results; long-polls up to `maxPollMs`. */
  async confirm(paymentId: string, request: ConfirmRequest, options: LongPollOptions = {}): Promise<ConfirmResponse> {
    return (await this.#request({
      method: 'POST',
      path: `${paymentPath(paymentId)}/confirm`,
      query: { maxPollMs: maxPollQuery(options.maxPollMs) },
      body: request,
      signal: options.signal,
    })) as ConfirmResponse;
  }

  /**
   * `GET /v1/gateway/payment/{id}/status`: current status; long-polls up to `maxPollMs` for a change from `since`. A
   * service from before `since` refuses it (paygate 0.1.0, which may answer beside a newer release during a rolling
   * upgrade): asked again without it, that service's long-poll waits for the next change.
   */
  async getStatus(paymentId: string, options: StatusPollOptions = {}): Promise<PaymentStatus> {
    const ask = (since: string | undefined) =>
      this.#request({
        method: 'GET',
        path: `${paymentPath(paymentId)}/status`,
        query: { maxPollMs: maxPollQuery(options.maxPollMs), since },
        signal: options.signal,
      }) as Promise<PaymentStatus>;
    try {
      return await ask(options.since);
    } catch (error) {
      if (options.since === undefined || !refusesField(error, 'since')) throw error;
      return ask(undefined);
    }
  }

  /** `POST /v1/gateway/payment/{id}/cancel`: the buyer declines the payment. */
  async cancel(paymentId: string): Promise<CancelledPayment> {
    return (await this.#request({
      method: 'POST',
      path: `${paymentPath(paymentId)}/cancel`,
    })) as CancelledPayment;
  }

  async #request(spec: RequestSpec): Promise<unknown> {
    const url = new URL(`${this.#baseUrl}${spec.path}`);
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    const headers: Record<string, string> = { Accept: 'application/json', ...this.#authHeaders };
    if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
    const { signal } = spec;
    const init: RequestInit = {
      method: spec.method,
      headers,
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
      ...(signal ? { signal } : {}),
    };

    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const retriesLeft = attempt < this.#retries;
      let response: ReceivedResponse;
      try {
        response = await this.#send(url, init);
      } catch (error) {
        // Ended by the caller: not a failure of the network, and not retried.
        signal?.throwIfAborted();
        if (!retriesLeft) {
          throw new GatewayNetworkError(`${spec.method} ${url.pathname} failed: ${describe(error)}`, {
            cause: error,
          });
        }
        await sleep(this.#backoffMs(attempt));
        continue;
      }

      if (response.status >= 200 && response.status < 300) {
        const body = parseSuccessBody(response);
        return spec.normalise ? spec.normalise(body, response.status) : body;
      }
      // A 429 (rate limited) or a 503 (the service cannot reach its database) may say when to come back.
      if ((response.status === 429 || response.status === 503) && retriesLeft) {
        const retryAfterMs = parseRetryAfterMs(response.headers.get('Retry-After'));
        await sleep(
          retryAfterMs === undefined ? this.#backoffMs(attempt) : Math.min(retryAfterMs, this.#maxRetryAfterMs),
        );
        continue;
      }
      if (response.status >= 500 && retriesLeft) {
        await sleep(this.#backoffMs(attempt));
        continue;
      }
      throw errorFromResponse(response);
    }
  }

  /** One attempt; reading the body is part of it, so a connection dropped mid-body counts as a network failure. */
  async #send(url: URL, init: RequestInit): Promise<ReceivedResponse> {
    const response = await this.#fetch(url, init);
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  }

  #backoffMs(attempt: number): number {
    const delay = this.#initialDelayMs * 2 ** attempt;
    // Jitter of up to half the delay spreads out clients that failed together without letting
    // one retry come sooner than the previous one.
    return delay + Math.random() * (delay / 2);
  }
}

function authHeaders(auth: GatewayAuth, apiVersion: string | undefined): Record<string, string> {
  const headers: Record<string, string> =
    auth === 'proxy'
      ? {}
      : 'apiKey' in auth
        ? { 'Api-Key': auth.apiKey }
        : { 'App-Id': auth.appId, 'Client-Id': auth.clientId };
  if (apiVersion !== undefined) headers['Pay-Version'] = apiVersion;
  return headers;
}

// Validating the id keeps it from reshaping the path (`..`, `/`, `?`).
function paymentPath(paymentId: string): string {
  if (!PAYMENT_ID_PATTERN.test(paymentId)) throw new TypeError(`Not a payment id: ${paymentId}`);
  return `/v1/gateway/payment/${paymentId}`;
}

/** Whether the service refused the request for a parameter it does not take. */
function refusesField(error: unknown, field: string): boolean {
  return (
    error instanceof GatewayError && error.status === 400 && !!error.issues?.some((issue) => issue.field === field)
  );
}

function maxPollQuery(maxPollMs: number | undefined): string | undefined {
  return maxPollMs === undefined ? undefined : String(nonNegativeInteger(maxPollMs, 'maxPollMs'));
}

function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer`);
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

/** `Retry-After` is either delay-seconds or an HTTP date. */
function parseRetryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalidResponse(status: number, message: string): GatewayError {
  return new GatewayError({ status, code: 'invalid_response', message });
}

function parseSuccessBody(response: ReceivedResponse): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    throw invalidResponse(response.status, 'Gateway response is not JSON');
  }
}

function errorFromResponse(response: ReceivedResponse): GatewayError {
  const retryAfterMs = response.status === 429 ? parseRetryAfterMs(response.headers.get('Retry-After')) : undefined;
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    body = undefined;
  }
  if (!isRecord(body) || typeof body.code !== 'string' || typeof body.message !== 'string') {
    return new GatewayError({
      status: response.status,
      code: 'http_error',
      message: `Gateway responded with HTTP ${response.status}`,
      retryAfterMs,
    });
  }
  return new GatewayError({
    status: response.status,
    code: body.code,
    message: body.message,
    details: isRecord(body.details) ? body.details : undefined,
    issues: Array.isArray(body.issues) ? body.issues.filter(isIssue) : undefined,
    retryAfterMs,
  });
}

function isIssue(value: unknown): value is GatewayErrorIssue {
  return isRecord(value) && typeof value.field === 'string' && typeof value.message === 'string';
}

function normaliseOptionsResponse(body: unknown, status: number): OptionsResponse {
  if (!isRecord(body) || !Array.isArray(body.options)) {
    throw invalidResponse(status, 'Options response has no options array');
  }
  const options = body.options.map((option: unknown) => {
    if (!isRecord(option) || !Array.isArray(option.actions)) {
      throw invalidResponse(status, 'Payment option has no actions array');
    }
    return { ...option, actions: option.actions.map((action: unknown) => normaliseAction(action, status)) };
  });
  return { ...body, options } as OptionsResponse;
}

function normaliseFetchResponse(body: unknown, status: number): FetchActionsResponse {
  if (!isRecord(body) || !Array.isArray(body.actions)) {
    throw invalidResponse(status, 'Fetch response has no actions array');
  }
  const actions = body.actions.map((raw: unknown) => {
    const action = normaliseAction(raw, status);
    if (action.type !== 'walletRpc') throw invalidResponse(status, 'Fetch returned a non-walletRpc action');
    return action;
  });
  return { ...body, actions };
}

/** Unknown action types are refused: their results could not be produced, and the confirm would misalign. */
function normaliseAction(raw: unknown, status: number): Action {
  if (!isRecord(raw) || !isRecord(raw.data)) throw invalidResponse(status, 'Malformed action');
  if (raw.type === 'build') {
    if (typeof raw.data.data !== 'string') throw invalidResponse(status, 'Build action without data');
    return { type: 'build', data: { data: raw.data.data } };
  }
  if (raw.type === 'walletRpc') return normaliseWalletRpcAction(raw.data, status);
  throw invalidResponse(status, `Unknown action type: ${String(raw.type)}`);
}

function normaliseWalletRpcAction(data: Record<string, unknown>, status: number): WalletRpcAction {
  const { chain_id: snakeChainId, chainId: camelChainId, method, params } = data;
  if (snakeChainId !== undefined && camelChainId !== undefined && snakeChainId !== camelChainId) {
    throw invalidResponse(status, 'walletRpc action has conflicting chain_id and chainId');
  }
  const chainId = snakeChainId ?? camelChainId;
  if (typeof chainId !== 'string' || typeof method !== 'string' || typeof params !== 'string') {
    throw invalidResponse(status, 'walletRpc action needs string chain_id, method and params');
  }
  return { type: 'walletRpc', data: { chain_id: chainId, method, params } };
}
