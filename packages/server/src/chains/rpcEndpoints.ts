import { Counter, type Registry } from 'prom-client';
import { componentLog } from '../log.ts';

/** How long a URL that failed is passed over while another one answers, before it is tried again. */
export const RPC_COOL_DOWN_MS = 30_000;

/** The part of an RPC URL that may be logged: providers put API keys in paths and queries, never in the host. */
export function rpcHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(not a URL)';
  }
}

interface FailureShape {
  name?: unknown;
  code?: unknown;
  status?: unknown;
  context?: { statusCode?: unknown; __code?: unknown };
  cause?: unknown;
}

/**
 * Why a request to an RPC URL failed when the URL is to blame (no connection, a dropped one, an HTTP error status,
 * a timeout), for the log: never the URL. `undefined` when the node answered, even with a JSON-RPC error, which
 * another node would give too.
 */
export function transportFailure(error: unknown): string | undefined {
  let transport = false;
  let current = error as FailureShape | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 8; depth++) {
    const { name, code, status } = current;
    const statusCode = typeof status === 'number' ? status : current.context?.statusCode;
    if (name === 'TimeoutError') return 'timed out';
    if (typeof statusCode === 'number' && statusCode >= 400) return `HTTP ${statusCode}`;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_\w+)$/.test(code)) return code;
    // viem's HTTP failures, and fetch's own (a TypeError whose cause says why).
    if (name === 'HttpRequestError' || name === 'TypeError') transport = true;
    if (name === 'SolanaError' && current.context?.statusCode !== undefined) transport = true;
    current = current.cause as FailureShape | undefined;
  }
  return transport ? 'request failed' : undefined;
}

/**
 * Requests to RPC URLs per network and outcome since the process started, across every client of the network: the
 * counts live with the module because each chain service builds its own endpoints, and `/metrics` reports them all.
 */
const requestCounts = new Map<string, { answered: number; failed: number }>();

function countsOf(network: string): { answered: number; failed: number } {
  let counts = requestCounts.get(network);
  if (!counts) {
    counts = { answered: 0, failed: 0 };
    requestCounts.set(network, counts);
  }
  return counts;
}

/**
 * `paygate_rpc_requests_total{network,outcome}`: requests this process sent to the network's RPC URLs, `answered` or
 * `failed` for the URL's own reasons (no connection, an HTTP error status, a timeout). An EVM node's JSON-RPC error
 * counts as neither: another node would give it too.
 */
export function registerRpcMetrics(registry: Registry): void {
  new Counter({
    name: 'paygate_rpc_requests_total',
    help: "Requests to the network's RPC URLs by outcome: answered, or failed (no connection, HTTP error, timeout)",
    labelNames: ['network', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [network, counts] of requestCounts) {
        this.labels(network, 'answered').inc(counts.answered);
        this.labels(network, 'failed').inc(counts.failed);
      }
    },
  });
}

/**
 * A network's RPC URLs in order of preference. A URL whose request failed for its own reasons is passed over for a
 * cool-down while a later URL is not resting, then tried again, so the service comes back to the first URL once it
 * answers. Only hosts are logged.
 */
export class RpcEndpoints {
  private readonly restingUntil: number[];
  private readonly coolDownMs: number;
  private readonly now: () => number;

  constructor(
    readonly network: string,
    readonly urls: readonly string[],
    options: { coolDownMs?: number; now?: () => number } = {},
  ) {
    this.restingUntil = urls.map(() => 0);
    this.coolDownMs = options.coolDownMs ?? RPC_COOL_DOWN_MS;
    this.now = options.now ?? Date.now;
  }

  private resting(index: number, now: number): boolean {
    return (this.restingUntil[index] ?? 0) > now;
  }

  /** Whether to pass the URL at `index` over now: it is resting and a later URL is not. */
  passOver(index: number): boolean {
    const now = this.now();
    if (!this.resting(index, now)) return false;
    for (let later = index + 1; later < this.urls.length; later++) if (!this.resting(later, now)) return true;
    return false;
  }

  /** The URLs' indices in the order to try them now: those not resting first, each group in configured order. */
  order(): number[] {
    const now = this.now();
    const indices = this.urls.map((_url, index) => index);
    return [
      ...indices.filter((index) => !this.resting(index, now)),
      ...indices.filter((index) => this.resting(index, now)),
    ];
  }

  failed(index: number, reason: string): void {
    countsOf(this.network).failed += 1;
    const now = this.now();
    const wasResting = this.resting(index, now);
    this.restingUntil[index] = now + this.coolDownMs;
    if (wasResting) return;
    componentLog('chains').warn(
      { network: this.network, host: rpcHost(this.urls[index] ?? ''), reason, coolDownMs: this.coolDownMs },
      this.urls.length > 1
        ? 'RPC URL failed: the next ones are used until it is tried again'
        : 'RPC URL failed: it is the only one configured',
    );
  }

  succeeded(index: number): void {
    countsOf(this.network).answered += 1;
    if (this.restingUntil[index] === 0) return;
    this.restingUntil[index] = 0;
    componentLog('chains').info(
      { network: this.network, host: rpcHost(this.urls[index] ?? '') },
      'RPC URL answers again',
    );
  }
}

/**
 * Rewrites `url` to its scheme and host in an error's messages and fields and in those of its causes, so that
 * whatever logs the error shows no key a provider put in the path or query.
 */
export function withHostOnly<T>(error: T, url: string): T {
  let shown: string;
  try {
    const parsed = new URL(url);
    shown = `${parsed.protocol}//${parsed.host}`;
  } catch {
    return error;
  }
  if (shown === url) return error;
  let current = error as Record<string, unknown> | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 8; depth++) {
    for (const field of ['message', 'shortMessage', 'details', 'stack', 'url']) {
      const value = current[field];
      if (typeof value === 'string' && value.includes(url)) {
        try {
          current[field] = value.replaceAll(url, shown);
        } catch {
          // A read-only field keeps its value.
        }
      }
    }
    const meta = current.metaMessages;
    if (Array.isArray(meta))
      current.metaMessages = meta.map((line) => (typeof line === 'string' ? line.replaceAll(url, shown) : line));
    current = current.cause as Record<string, unknown> | undefined;
  }
  return error;
}
