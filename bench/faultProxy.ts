import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { bufferingServer, closeServer, listenOnLoopback } from './support.ts';

/** How often each fault strikes a request (shares from 0 to 1), drawn independently. */
export interface FaultRates {
  /** The connection is cut without an answer: half before the node sees the request, half after it ran it. */
  drop: number;
  /** Held up to `maxDelayMs` before it goes on to the node. */
  delay: number;
  maxDelayMs: number;
  /**
   * Answered with an error: HTTP 503 or a JSON-RPC error before the node sees it, or a JSON-RPC error after the node
   * ran it (a sent transaction the caller is told failed).
   */
  error: number;
  /** A head read (`eth_blockNumber`, `getSlot`, `getBlockHeight`) answered with a value the node gave seconds ago. */
  stale: number;
}

export const NO_FAULTS: FaultRates = { drop: 0, delay: 0, maxDelayMs: 0, error: 0, stale: 0 };

export interface FaultCounts {
  requests: number;
  dropped: number;
  delayed: number;
  errored: number;
  stale: number;
}

const HEAD_METHODS = new Set(['eth_blockNumber', 'getSlot', 'getBlockHeight']);
/** Stale answers come from this far back at most. */
const STALE_WINDOW_MS = 10_000;

interface RpcCall {
  id?: unknown;
  method?: unknown;
}

interface RpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: unknown;
}

function parseCalls(body: Buffer): { calls: RpcCall[]; batch: boolean } | null {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    if (Array.isArray(parsed)) return { calls: parsed as RpcCall[], batch: true };
    if (typeof parsed === 'object' && parsed !== null) return { calls: [parsed as RpcCall], batch: false };
  } catch {
    // Forwarded as it is: the node answers what it makes of it.
  }
  return null;
}

function rpcError(calls: RpcCall[], batch: boolean): string {
  const answers = calls.map((call) => ({
    jsonrpc: '2.0',
    id: call.id ?? null,
    error: { code: -32603, message: 'fault proxy: injected internal error' },
  }));
  return JSON.stringify(batch ? answers : answers[0]);
}

/**
 * A JSON-RPC proxy on 127.0.0.1 in front of one chain node that misbehaves as real providers do: it drops
 * connections, answers late, fails requests (also after the node ran them) and serves old heads. Rates can change
 * while it runs; every fault is counted.
 */
export class FaultProxy {
  readonly counts: FaultCounts = { requests: 0, dropped: 0, delayed: 0, errored: 0, stale: 0 };
  private server: http.Server | undefined;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  /** Head answers the node gave, oldest first, per method. */
  private readonly heads = new Map<string, { at: number; result: unknown }[]>();

  constructor(
    readonly label: string,
    readonly upstream: string,
    public rates: FaultRates = NO_FAULTS,
    private readonly random: () => number = Math.random,
  ) {}

  async start(): Promise<string> {
    this.server = bufferingServer((body, request, response) => this.handle(body, request, response));
    return listenOnLoopback(this.server);
  }

  async stop(): Promise<void> {
    await closeServer(this.server);
    this.agent.destroy();
  }

  private chance(rate: number): boolean {
    return rate > 0 && this.random() < rate;
  }

  private async handle(body: Buffer, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    this.counts.requests += 1;
    const { rates } = this;
    const parsed = parseCalls(body);
    if (this.chance(rates.delay)) {
      this.counts.delayed += 1;
      await sleep(Math.round(this.random() * rates.maxDelayMs));
    }
    const drop = this.chance(rates.drop) ? (this.random() < 0.5 ? 'before' : 'after') : undefined;
    const error = parsed && this.chance(rates.error) ? Math.floor(this.random() * 3) : undefined;
    if (drop === 'before') {
      this.counts.dropped += 1;
      request.socket.destroy();
      return;
    }
    if (error === 0) {
      this.counts.errored += 1;
      response.writeHead(503, { 'content-type': 'text/plain' }).end('fault proxy: injected unavailability');
      return;
    }
    if (error === 1 && parsed) {
      this.counts.errored += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(rpcError(parsed.calls, parsed.batch));
      return;
    }
    const answer = await this.forward(body, request);
    if (drop === 'after') {
      this.counts.dropped += 1;
      request.socket.destroy();
      return;
    }
    if (error === 2 && parsed) {
      this.counts.errored += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(rpcError(parsed.calls, parsed.batch));
      return;
    }
    response
      .writeHead(answer.status, { 'content-type': answer.contentType })
      .end(parsed ? this.withHeads(parsed, answer.body) : answer.body);
  }

  /** Records the node's head answers and, at the stale rate, puts an older one in their place. */
  private withHeads(parsed: { calls: RpcCall[]; batch: boolean }, body: Buffer): Buffer {
    const heads = parsed.calls.filter((call) => typeof call.method === 'string' && HEAD_METHODS.has(call.method));
    if (!heads.length) return body;
    let answers: RpcAnswer | RpcAnswer[];
    try {
      answers = JSON.parse(body.toString('utf8')) as RpcAnswer | RpcAnswer[];
    } catch {
      return body;
    }
    const list = Array.isArray(answers) ? answers : [answers];
    const now = Date.now();
    let changed = false;
    for (const call of heads) {
      const answer = list.find((candidate) => candidate.id === call.id);
      if (!answer || answer.error !== undefined) continue;
      const method = call.method as string;
      const seen = (this.heads.get(method) ?? []).filter((head) => now - head.at <= STALE_WINDOW_MS);
      const older = seen.filter((head) => now - head.at >= 1_000);
      if (older.length && this.chance(this.rates.stale)) {
        this.counts.stale += 1;
        answer.result = older[Math.floor(this.random() * older.length)]?.result;
        changed = true;
      } else {
        seen.push({ at: now, result: answer.result });
      }
      this.heads.set(method, seen);
    }
    return changed ? Buffer.from(JSON.stringify(answers)) : body;
  }

  private forward(
    body: Buffer,
    request: http.IncomingMessage,
  ): Promise<{ status: number; contentType: string; body: Buffer }> {
    const target = new URL(this.upstream);
    return new Promise((resolve, reject) => {
      const forwarded = http.request(
        {
          hostname: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: request.method,
          agent: this.agent,
          headers: {
            'content-type': request.headers['content-type'] ?? 'application/json',
            'content-length': body.length,
          },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            resolve({
              status: answer.statusCode ?? 502,
              contentType: answer.headers['content-type'] ?? 'application/json',
              body: Buffer.concat(chunks),
            }),
          );
          answer.on('error', reject);
        },
      );
      forwarded.on('error', reject);
      forwarded.end(body);
    });
  }
}
