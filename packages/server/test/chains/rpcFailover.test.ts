import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayTestbed,
  signSolanaAsWallet,
  signTypedDataAsWallet,
  startGatewayTestbed,
} from '../gateway/support/gatewayTestbed.ts';
import { createPayment } from '../support/fixtures.ts';
import { type ServerProcess, startServerProcess } from '../support/serverProcess.ts';
import { call } from '../support/testServer.ts';

/** A port nothing listens on: a server opened on a free port and closed again. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface FlappingProxy {
  url: string;
  target: string;
  forwarded: () => number;
  failed: () => number;
  close(): Promise<void>;
}

/**
 * An RPC URL that forwards to `target` every other request, and fails the others without forwarding them:
 * alternately with HTTP 503 and by dropping the connection.
 */
async function flappingProxy(target: string): Promise<FlappingProxy> {
  let requests = 0;
  let forwarded = 0;
  let failed = 0;
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    requests += 1;
    if (requests % 2 === 0) {
      failed += 1;
      if (requests % 4 === 0) request.socket.destroy();
      else response.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    const answer = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat(chunks),
    });
    forwarded += 1;
    response
      .writeHead(answer.status, { 'content-type': 'application/json' })
      .end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/SECRET-PROXY-KEY`,
    target,
    forwarded: () => forwarded,
    failed: () => failed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * `paygate start` on a network whose first RPC URL is dead or flapping and whose second is the devnet's node: EVM
 * and Solana payments complete through the service's HTTP API, and no URL is shown or logged beyond its host.
 */
describe('RPC failover', () => {
  let bed: GatewayTestbed;
  let dataDir: string;
  const running: ServerProcess[] = [];
  const proxies: FlappingProxy[] = [];

  beforeAll(async () => {
    bed = await startGatewayTestbed({ workers: false });
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-rpc-failover-'));
  }, 180_000);

  afterAll(async () => {
    for (const server of running) await server.stop().catch(() => {});
    for (const proxy of proxies) await proxy.close();
    await bed?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  /** The service with each network's RPC URLs put first by `first(nodeUrl)`, then the devnet node's. */
  async function startService(name: string, first: (nodeUrl: string) => Promise<string>): Promise<ServerProcess> {
    const networks = [];
    for (const network of bed.chains.networks) {
      networks.push({ ...network, rpcUrl: `${await first(network.rpcUrl as string)}, ${network.rpcUrl}` });
    }
    const chainsFile = path.join(dataDir, `${name}.json`);
    await fs.writeFile(chainsFile, JSON.stringify(networks));
    const server = await startServerProcess({
      DATABASE_URL: bed.databaseUrl,
      DATA_DIR: path.join(dataDir, name),
      CHAINS: chainsFile,
      COLLECTOR_EVM_PRIVATE_KEY: bed.keys.evmPrivateKey,
      COLLECTOR_SOLANA_SEED: bed.keys.solanaSeedHex,
      DEMO_PARTNER: 'never',
    });
    running.push(server);
    return server;
  }

  function gateway(server: ServerProcess, paymentId: string, suffix: string, body?: unknown) {
    return call(
      server,
      `/v1/gateway/payment/${paymentId}${suffix}`,
      body === undefined ? { headers: bed.walletHeaders } : { method: 'POST', headers: bed.walletHeaders, body },
    );
  }

  async function finalStatus(server: ServerProcess, paymentId: string) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = await gateway(server, paymentId, '/status?maxPollMs=10000');
      expect(status.status, status.text).toBe(200);
      if (status.body.isFinal || Date.now() > deadline) return status.body;
    }
  }

  async function payWithEvm(server: ServerProcess): Promise<string> {
    const { paymentId } = await createPayment(server, bed.partner.apiKey, bed.merchantId);
    const options = await gateway(server, paymentId, '/options', { accounts: [bed.evmAccount('alice')] });
    expect(options.status, options.text).toBe(200);
    const option = options.body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    expect(option, options.text).toBeDefined();
    const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, option.actions[0].data.params);
    const confirmed = await gateway(server, paymentId, '/confirm', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    return (await finalStatus(server, paymentId)).status;
  }

  async function payWithSolana(server: ServerProcess): Promise<string> {
    const { paymentId } = await createPayment(server, bed.partner.apiKey, bed.merchantId);
    const options = await gateway(server, paymentId, '/options', { accounts: [bed.solanaAccount('erin')] });
    expect(options.status, options.text).toBe(200);
    const option = options.body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    expect(option, options.text).toBeDefined();
    const fetched = await gateway(server, paymentId, '/fetch', {
      optionId: option.id,
      data: option.actions[0].data.data,
    });
    expect(fetched.status, fetched.text).toBe(200);
    const signed = await signSolanaAsWallet(bed.buyer('erin').solanaSecretKey, fetched.body.actions[0].data.params);
    const confirmed = await gateway(server, paymentId, '/confirm', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signed] }],
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    return (await finalStatus(server, paymentId)).status;
  }

  it('pays on EVM and Solana when every network’s first URL is a closed port, and shows and logs no URL', async () => {
    const port = await closedPort();
    const server = await startService('dead-first', async () => `http://127.0.0.1:${port}/v2/SECRET-DEAD-KEY`);
    expect(await payWithEvm(server), server.output()).toBe('succeeded');
    expect(await payWithSolana(server), server.output()).toBe('succeeded');

    const listed = await call(server, '/v1/networks', { headers: { 'api-key': bed.partner.apiKey } });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.networks.length).toBe(bed.chains.networks.length);
    expect(listed.text).not.toMatch(/rpcUrl|SECRET|127\.0\.0\.1/);
    for (const network of bed.chains.networks) expect(listed.text).not.toContain(network.rpcUrl as string);

    // The dead URL is named by its host when it fails, never with its key.
    expect(server.output()).toMatch(new RegExp(`"host":"127\\.0\\.0\\.1:${port}".*RPC URL failed`));
    expect(server.output()).not.toContain('SECRET-DEAD-KEY');
  }, 180_000);

  it('pays on EVM and Solana when every network’s first URL fails every other request', async () => {
    const server = await startService('flapping-first', async (nodeUrl) => {
      const proxy = await flappingProxy(nodeUrl);
      proxies.push(proxy);
      return proxy.url;
    });
    expect(await payWithEvm(server), server.output()).toBe('succeeded');
    expect(await payWithSolana(server), server.output()).toBe('succeeded');
    // The proxies of the networks paid on answered and failed requests: the service went through them and around.
    const paidOn = [bed.chains.network(bed.evmChain()), bed.chains.network(bed.devnet.manifest.solana.caip2)];
    for (const network of paidOn) {
      const proxy = proxies.find((candidate) => candidate.target === network?.rpcUrl);
      expect(
        [proxy?.forwarded(), proxy?.failed()].map((count) => (count ?? 0) > 0),
        network?.caip2,
      ).toEqual([true, true]);
    }
    expect(server.output()).not.toContain('SECRET-PROXY-KEY');
  }, 180_000);
});
