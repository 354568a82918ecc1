import { get, type IncomingHttpHeaders } from 'node:http';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../support/testServer.ts';

/** The budget for the first page: its JavaScript and CSS, compressed. */
const FIRST_PAGE_BUDGET_BYTES = 200 * 1024;

/** A GET answered as it was sent: its headers and its body's bytes, compressed or not (fetch would decompress). */
function rawGet(url: string, acceptEncoding: string) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    }).on('error', reject);
  });
}

describe('dashboard shell and assets', () => {
  let server: TestServer;
  let shell: string;
  let assetPaths: string[];

  beforeAll(async () => {
    server = await startTestServer();
    const answer = await call(server, '/dashboard');
    shell = answer.text;
    assetPaths = [...shell.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+\.(?:js|css))"/g)].map(
      (match) => match[1]!,
    );
  });
  afterAll(() => server?.close());

  it('answers every page path with the same shell, under the page security headers, with no inline script', async () => {
    const first = await call(server, '/dashboard');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(first.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    for (const path of [
      '/dashboard/',
      '/dashboard/sign-in?link=spent',
      '/dashboard/overview?range=7d',
      '/dashboard/payments',
      '/dashboard/payments/pay_x',
    ]) {
      const page = await call(server, path);
      expect(page.status).toBe(200);
      expect(page.text).toBe(shell);
    }
    expect(assetPaths).toHaveLength(2);
    // Every script is a file of the service's own (the policy allows no other).
    expect([...shell.matchAll(/<script([^>]*)>/g)].map((match) => match[1])).toEqual([
      ` defer src="${assetPaths.find((path) => path.endsWith('.js'))}"`,
    ]);
  });

  it('answers every operator console path with its own shell: its own script, the same stylesheet', async () => {
    const operatorShell = (await call(server, '/operator')).text;
    const operatorAssets = [...operatorShell.matchAll(/(?:src|href)="(\/operator\/assets\/[^"]+\.(?:js|css))"/g)].map(
      (match) => match[1]!,
    );
    expect(operatorAssets.map((path) => path.replace(/\.[0-9a-f]{16}\./, '.'))).toEqual([
      '/operator/assets/dashboard.css',
      '/operator/assets/operator.js',
    ]);
    expect(operatorAssets[0]!.replace('/operator/', '/dashboard/')).toBe(
      assetPaths.find((path) => path.endsWith('.css')),
    );
    for (const path of ['/operator/', '/operator/sign-in?link=spent', '/operator/partners', '/operator/merchants']) {
      const page = await call(server, path);
      expect([page.status, page.headers.get('cache-control')]).toEqual([200, 'no-store']);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(page.text).toBe(operatorShell);
    }
    for (const path of operatorAssets) {
      const served = await rawGet(`${server.url}${path}`, 'br');
      expect([served.status, served.headers['content-encoding']]).toEqual([200, 'br']);
    }
    // The console's own endpoints stay its API's: an unknown one is not a page.
    for (const path of ['/operator/api/nothing', '/operator/assets/nothing.js', '/operator/link']) {
      expect((await call(server, path)).body.code).toBe('not_found');
    }
    expect((await call(server, '/operator/api/partners')).body.code).toBe('invalid_session');
  });

  it("leaves the service's own dashboard endpoints to themselves: unknown ones are the API's 404", async () => {
    for (const path of ['/dashboard/api/nothing', '/dashboard/assets/nothing.js', '/dashboard/link']) {
      const answer = await call(server, path);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('not_found');
    }
    expect((await call(server, '/dashboard/api/session')).body.code).toBe('invalid_session');
  });

  it('serves the assets under content-hashed names, cached for good, compressed when the browser takes it', async () => {
    const decompress = { br: brotliDecompressSync, gzip: gunzipSync };
    for (const path of assetPaths) {
      const plain = await rawGet(`${server.url}${path}`, 'identity');
      expect(plain.status).toBe(200);
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('accept-encoding');
      for (const encoding of ['br', 'gzip'] as const) {
        const compressed = await rawGet(`${server.url}${path}`, `${encoding}, deflate`);
        expect(compressed.headers['content-encoding']).toBe(encoding);
        expect(compressed.body.length).toBeLessThan(plain.body.length);
        expect(decompress[encoding](compressed.body).equals(plain.body)).toBe(true);
      }
      // Brotli first when both are taken; neither when the browser refuses them.
      expect((await rawGet(`${server.url}${path}`, 'gzip, deflate, br')).headers['content-encoding']).toBe('br');
      expect((await rawGet(`${server.url}${path}`, 'br;q=0, gzip;q=0')).headers['content-encoding']).toBeUndefined();
    }
  });

  it('keeps the first page under 200 KB of JavaScript and CSS compressed', async () => {
    let gzipBytes = 0;
    let brotliBytes = 0;
    let servedBytes = 0;
    for (const path of assetPaths) {
      const plain = await rawGet(`${server.url}${path}`, 'identity');
      expect(plain.status).toBe(200);
      gzipBytes += gzipSync(plain.body).length;
      brotliBytes += brotliCompressSync(plain.body).length;
      servedBytes += (await rawGet(`${server.url}${path}`, 'gzip, deflate, br')).body.length;
    }
    console.info(
      `dashboard first page, JS + CSS: ${servedBytes} B served (brotli), ${gzipBytes} B gzip, ${brotliBytes} B brotli`,
    );
    expect(gzipBytes).toBeLessThan(FIRST_PAGE_BUDGET_BYTES);
    expect(brotliBytes).toBeLessThan(FIRST_PAGE_BUDGET_BYTES);
    expect(servedBytes).toBeLessThan(FIRST_PAGE_BUDGET_BYTES);
  });
});
