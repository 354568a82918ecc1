import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../support/serverProcess.ts';
import { call } from '../support/testServer.ts';
import { type GatewayTestbed, signTypedDataAsWallet, startGatewayTestbed } from './support/gatewayTestbed.ts';

async function until<T>(
  what: string,
  look: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Two `paygate start` processes on one database and one devnet: each network is followed by exactly one of them,
 * and when that one dies without a word (SIGKILL), the other takes the network over and finishes the payments.
 * The in-process testbed serves the API only; its own workers and followers do not run.
 */
describe('chain followers across processes', () => {
  let bed: GatewayTestbed;
  let dataDir: string;
  let chainsFile: string;
  const running: ServerProcess[] = [];

  beforeAll(async () => {
    bed = await startGatewayTestbed({ workers: false });
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-follower-takeover-'));
    chainsFile = path.join(dataDir, 'chains.json');
    await fs.writeFile(chainsFile, JSON.stringify(bed.chains.networks));
  }, 180_000);

  afterAll(async () => {
    for (const server of running) await server.stop().catch(() => {});
    await bed?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function startService(): Promise<ServerProcess> {
    const server = await startServerProcess({
      DATABASE_URL: bed.databaseUrl,
      DATA_DIR: dataDir,
      CHAINS: chainsFile,
      COLLECTOR_EVM_PRIVATE_KEY: bed.keys.evmPrivateKey,
      COLLECTOR_SOLANA_SEED: bed.keys.solanaSeedHex,
      DEMO_PARTNER: 'never',
    });
    running.push(server);
    return server;
  }

  /** The process's `paygate_chain_follower_leading` per network and part (`<chain> <part>`). */
  async function leading(server: ServerProcess): Promise<Record<string, number>> {
    const metrics = await call(server, '/metrics');
    const values: Record<string, number> = {};
    for (const match of metrics.text.matchAll(
      /^paygate_chain_follower_leading\{chain="([^"]+)",part="([^"]+)"\} (\d)$/gm,
    ))
      values[`${match[1]} ${match[2]}`] = Number(match[3]);
    return values;
  }

  it('follows each part of each network in one process; when that process is killed, the other takes over and finishes its payments', async () => {
    // An EVM network's deposits are read by a follower of their own, so a slow pass over transactions never holds them.
    const parts = bed.chains.networks.flatMap(({ caip2, namespace }) =>
      namespace === 'eip155' ? [`${caip2} transactions`, `${caip2} deposits`] : [`${caip2} transactions`],
    );
    const first = await startService();
    const followsAll = async (server: ServerProcess) => {
      const values = await leading(server);
      return parts.every((part) => values[part] === 1);
    };
    await until('the first process to follow every network', () => followsAll(first), 20_000);
    const second = await startService();
    // Give the second process a few takeover attempts: every network stays with the first.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const [firstLeads, secondLeads] = await Promise.all([leading(first), leading(second)]);
    for (const part of parts) expect([firstLeads[part], secondLeads[part]], part).toEqual([1, 0]);

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    await until('the second process to take every network over', () => followsAll(second), 10_000);

    // A payment confirmed now is submitted and followed by the survivor.
    const { paymentId } = await bed.newPayment();
    const options = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('alice')] });
    const option = options.body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, option.actions[0].data.params);
    const confirmed = await bed.gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const final = await until(
      'the payment to succeed',
      async () => {
        const status = (await bed.gateway(paymentId, '/status?maxPollMs=5000')).body;
        return status.isFinal ? status : null;
      },
      30_000,
    );
    expect(final.status, second.output()).toBe('succeeded');
  });
});
