import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Devnet, startDevnet } from '@paygate/devnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solanaRpc } from '../../../src/chains/solana/rpc.ts';

/** The answer a failing request gets instead of the node's: an HTTP 503, or a JSON-RPC error with `code`. */
type Failure = { status: 503 } | { code: number };

/** A URL in front of the devnet's Solana node that fails the requests `fail` picks and forwards the others. */
async function failingNode(target: string, fail: (request: number) => Failure | undefined) {
  let requests = 0;
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    requests += 1;
    const failure = fail(requests);
    if (failure && 'status' in failure) return void response.writeHead(503).end('unavailable');
    if (failure) {
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown };
      return void response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: failure.code, message: 'failing on purpose' } }));
    }
    const answer = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat(chunks),
    });
    response
      .writeHead(answer.status, { 'content-type': 'application/json' })
      .end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Solana RPC calls through a failing node', () => {
  let devnet: Devnet;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-solana-retry-'));
    devnet = await startDevnet({ dataDir });
  }, 120_000);
  afterAll(async () => {
    await devnet?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('are tried again after an HTTP error and an internal JSON-RPC error, and get the node’s answer', async () => {
    const node = await failingNode(devnet.manifest.solana.rpcUrl, (request) =>
      request === 1 ? { status: 503 } : request === 2 ? { code: -32603 } : undefined,
    );
    try {
      const slot = await solanaRpc(node.url).getSlot().send();
      expect(slot).toBeGreaterThan(0n);
      expect(node.requests()).toBe(3);
    } finally {
      await node.close();
    }
  });

  it('give up after three tries of a node that keeps failing, and take any other JSON-RPC error as the answer', async () => {
    const failing = await failingNode(devnet.manifest.solana.rpcUrl, () => ({ code: -32603 }));
    const refusing = await failingNode(devnet.manifest.solana.rpcUrl, () => ({ code: -32002 }));
    try {
      await expect(solanaRpc(failing.url).getSlot().send()).rejects.toThrow(/failing on purpose|-32603/);
      expect(failing.requests()).toBe(3);
      await expect(solanaRpc(refusing.url).getSlot().send()).rejects.toThrow();
      expect(refusing.requests()).toBe(1);
    } finally {
      await failing.close();
      await refusing.close();
    }
  });
});
