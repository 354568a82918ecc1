import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `performance.now()` when the request arrived. */
  at: number;
}

/** How the server answers one request. */
export type Step = (res: ServerResponse, request: RecordedRequest) => void;

export interface ScriptedServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that answers the n-th request with the n-th step. Requests beyond the
 * script get a 418 (a 4xx, so the client does not retry) and make the test fail loudly.
 */
export async function startScriptedServer(steps: Step[]): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at,
      };
      const step = steps[requests.length] ?? json(418, { code: 'script_exhausted', message: 'No step left' });
      requests.push(request);
      step(res, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Step {
  return (res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

export function text(status: number, body: string): Step {
  return (res) => {
    res.writeHead(status, { 'Content-Type': 'text/html' });
    res.end(body);
  };
}

/** Drops the connection without any response. */
export function dropConnection(): Step {
  return (res) => {
    res.socket?.destroy();
  };
}

/** Sends a 200 with part of the promised body, then drops the connection. */
export function dropMidBody(): Step {
  return (res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
    res.write('{"status":');
    setTimeout(() => res.socket?.destroy(), 20);
  };
}

/** A base URL on which nothing listens: a server is started to get a free port, then closed. */
export async function unusedBaseUrl(): Promise<string> {
  const server = await startScriptedServer([]);
  await server.close();
  return server.baseUrl;
}
