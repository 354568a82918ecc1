import http from 'node:http';
import { closeServer, listenOnLoopback } from './support.ts';

/** Calls by `<node label> <method>`, plus the HTTP round trips that carried them. */
export interface RpcCounts {
  calls: Map<string, number>;
  httpRequests: number;
}

function methodsOf(body: Buffer): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return ['(unparsable body)'];
  }
  const entries = Array.isArray(parsed) ? parsed : [parsed];
  return entries.map((entry) => {
    const method = typeof entry === 'object' && entry !== null ? (entry as { method?: unknown }).method : undefined;
    return typeof method === 'string' ? method : '(no method)';
  });
}

/**
 * A JSON-RPC proxy on 127.0.0.1 in front of one node: forwards each request body unchanged to the node and returns
 * its answer, counting every JSON-RPC call by method (a batch counts once per element).
 */
export class CountingRpcProxy {
  readonly calls = new Map<string, number>();
  httpRequests = 0;
  private server: http.Server | undefined;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

  constructor(
    /** Short name of the node, prefixed to every counted method. */
    readonly label: string,
    readonly upstream: string,
  ) {}

  async start(): Promise<string> {
    const target = new URL(this.upstream);
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        this.httpRequests += 1;
        for (const method of methodsOf(body)) this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
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
            const headers: http.OutgoingHttpHeaders = {};
            if (answer.headers['content-type']) headers['content-type'] = answer.headers['content-type'];
            if (answer.headers['content-length']) headers['content-length'] = answer.headers['content-length'];
            response.writeHead(answer.statusCode ?? 502, headers);
            answer.pipe(response);
          },
        );
        forwarded.on('error', (error) => {
          if (response.headersSent) return response.destroy();
          response.writeHead(502, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: `proxy: ${error.message}` } }),
          );
        });
        forwarded.end(body);
      });
    });
    server.keepAliveTimeout = 60_000;
    this.server = server;
    return listenOnLoopback(server);
  }

  async stop(): Promise<void> {
    await closeServer(this.server);
    this.agent.destroy();
  }
}

/** Every proxy's counts at this moment, keyed `<label> <method>`. */
export function snapshot(proxies: CountingRpcProxy[]): RpcCounts {
  const calls = new Map<string, number>();
  let httpRequests = 0;
  for (const proxy of proxies) {
    httpRequests += proxy.httpRequests;
    for (const [method, count] of proxy.calls) calls.set(`${proxy.label} ${method}`, count);
  }
  return { calls, httpRequests };
}

/** What was counted between two snapshots. */
export function countsBetween(before: RpcCounts, after: RpcCounts): RpcCounts {
  const calls = new Map<string, number>();
  for (const [key, count] of after.calls) {
    const delta = count - (before.calls.get(key) ?? 0);
    if (delta) calls.set(key, delta);
  }
  return { calls, httpRequests: after.httpRequests - before.httpRequests };
}

export function totalCalls(counts: RpcCounts): number {
  let total = 0;
  for (const count of counts.calls.values()) total += count;
  return total;
}

/** The most called methods, highest first. */
export function topMethods(counts: RpcCounts, limit: number): [string, number][] {
  return [...counts.calls].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
}
