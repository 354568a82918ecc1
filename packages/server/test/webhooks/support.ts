import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestCertificate } from '../support/logoServer.ts';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What a receiver path answers: a status code, or 'hang' to never answer. */
export type ReceiverBehaviour = (request: ReceivedRequest, countOnPath: number) => number | 'hang';

export interface WebhookReceiver {
  port: number;
  urlFor(path: string): string;
  on(path: string, behaviour: ReceiverBehaviour): void;
  received(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

/** An HTTPS webhook receiver on 127.0.0.1 recording every request; paths answer 200 unless told otherwise. */
export async function startWebhookReceiver(certificate: TestCertificate): Promise<WebhookReceiver> {
  const behaviours = new Map<string, ReceiverBehaviour>();
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer(
    { key: certificate.key, cert: certificate.cert },
    (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const request = {
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        requests.push(request);
        const answer = (behaviours.get(path) ?? (() => 200))(request, requests.filter((r) => r.path === path).length);
        if (answer !== 'hang') res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    urlFor: (path) => `https://127.0.0.1:${port}${path}`,
    on: (path, behaviour) => behaviours.set(path, behaviour),
    received: (path) => requests.filter((request) => request.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls until `check` returns a value other than undefined or false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
