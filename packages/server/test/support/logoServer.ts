import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export interface TestCertificate {
  key: string;
  cert: string;
}

/** Host names the test certificate is valid for; tests resolve them to loopback addresses through an injected lookup. */
export const TEST_HOST_NAMES = ['logo.test', 'public.example', 'internal.example', 'localhost'] as const;

/** A throwaway self-signed certificate, trusted by the code under test only through extraCaCertificates. */
export async function createTestCertificate(): Promise<TestCertificate> {
  const generated = await generate([{ name: 'commonName', value: 'logo.test' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 24 * 60 * 60 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...TEST_HOST_NAMES.map((value) => ({ type: 2 as const, value })),
          { type: 7 as const, ip: '127.0.0.1' },
          { type: 7 as const, ip: '127.0.0.2' },
          { type: 7 as const, ip: '::1' },
        ],
      },
    ],
  });
  return { key: generated.private, cert: generated.cert };
}

export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void;

export interface LogoServer {
  port: number;
  /** TCP connections accepted so far, counted before any TLS or HTTP happens. */
  connectionCount(): number;
  /** Paths requested so far, in order. */
  requestedPaths(): string[];
  close(): Promise<void>;
}

/** An HTTPS server on one local address answering fixed routes; unknown paths get 404. */
export async function startLogoServer(options: {
  host: string;
  certificate: TestCertificate;
  routes: Record<string, RouteHandler>;
}): Promise<LogoServer> {
  let connections = 0;
  const paths: string[] = [];
  const server: Server = createServer({ key: options.certificate.key, cert: options.certificate.cert }, (req, res) => {
    const path = req.url ?? '/';
    paths.push(path);
    const handler = options.routes[path];
    if (handler) {
      handler(req, res);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    connectionCount: () => connections,
    requestedPaths: () => [...paths],
    close: async () => {
      // Routes that never finish keep sockets open; drop them so close() can complete.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers 200 with the given body, declaring its length. */
export function serveBytes(body: Buffer | string, contentType: string): RouteHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }).end(body);
  };
}

/** Answers a redirect to `location`. */
export function redirectTo(location: string, status = 302): RouteHandler {
  return (_req, res) => {
    res.writeHead(status, { location }).end();
  };
}
