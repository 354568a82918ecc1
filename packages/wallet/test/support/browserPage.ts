import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

export const BROWSER_ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/browser.ts');

/** Bundles the browser entry the way a web page would: one ESM file for the browser platform. */
export async function bundleBrowserEntry(): Promise<{ code: string; metafile: Metafile }> {
  const result = await build({
    entryPoints: [BROWSER_ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0]!.text, metafile: result.metafile };
}

export { launchChromium } from '../../../server/test/checkout/support/browser.ts';

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

// The bundle's exports land on `window.wallet`, as a checkout page script would use them.
const PAGE = `<!doctype html><title>wallet</title>
<script type="module">import * as wallet from '/wallet.js'; window.wallet = wallet;</script>`;

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves a blank page and the bundle at `/wallet.js`, and forwards `/v1/...` to the service, so the page calls the
 * gateway from its own origin as a checkout page served by the service does.
 */
export async function startPageServer(bundle: string, serviceUrl: string | null): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? '/';
      if (url === '/wallet.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(bundle);
        return;
      }
      if (url.startsWith('/v1/') && serviceUrl) {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
            headers.set(name, value);
        }
        const body = req.method === 'GET' ? undefined : new Uint8Array(await readBody(req));
        const answer = await fetch(`${serviceUrl}${url}`, { method: req.method, headers, body });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    })().catch((error: Error) => {
      res.writeHead(502);
      res.end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
