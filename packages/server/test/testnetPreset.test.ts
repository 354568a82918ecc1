import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rpcUrlVariable, setUpChains, testnetNetworks } from '../src/chains/chainConfig.ts';
import { MAINNET_NETWORKS } from '../src/chains/mainnets.ts';
import { TESTNET_NETWORKS } from '../src/chains/testnets.ts';
import { ConfigError } from '../src/config.ts';
import { call } from './support/testServer.ts';
import { childEnv, runCli, startServerProcess } from './support/serverProcess.ts';

const WALLET_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../wallet/bin/paygate-wallet.js');

/** Runs `paygate-wallet` to completion. */
function runWallet(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [WALLET_BIN, ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

/** Circle's testnet stablecoins as Circle publishes them (Celo Sepolia's as x402 lists it): chain, symbol, token. */
const CIRCLE_TESTNET_TOKENS = [
  ['eip155:11155111', 'USDC', '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'],
  ['eip155:11155111', 'EURC', '0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4'],
  ['eip155:84532', 'USDC', '0x036CbD53842c5426634e7929541eC2318f3dCF7e'],
  ['eip155:84532', 'EURC', '0x808456652fdb597867f38412077A9182bf77359F'],
  ['eip155:421614', 'USDC', '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d'],
  ['eip155:11155420', 'USDC', '0x5fd84259d66Cd46123540766Be93DFE6D43130D7'],
  ['eip155:80002', 'USDC', '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582'],
  ['eip155:11142220', 'USDC', '0x01C5C0122039549AD1493B8220cABEdD739BC44E'],
  ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'USDC', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'],
];

/** One RPC URL variable per testnet, as an operator sets them; nothing listens there (no network in tests). */
const ALL_TESTNET_RPC_URLS = Object.fromEntries(
  TESTNET_NETWORKS.map((network, index) => [rpcUrlVariable(network.caip2), `http://127.0.0.1:${9 + index}`]),
);

describe('CHAINS=testnet', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-testnets-'));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it("lists the public testnets with Circle's testnet USDC and EURC, and nothing else", () => {
    expect(TESTNET_NETWORKS.map((network) => [network.caip2, network.name])).toEqual([
      ['eip155:11155111', 'Ethereum Sepolia'],
      ['eip155:84532', 'Base Sepolia'],
      ['eip155:421614', 'Arbitrum Sepolia'],
      ['eip155:11155420', 'OP Sepolia'],
      ['eip155:80002', 'Polygon Amoy'],
      ['eip155:11142220', 'Celo Sepolia'],
      ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'Solana Devnet'],
    ]);
    const tokens = TESTNET_NETWORKS.flatMap((network) => network.tokens);
    expect(tokens.map((token) => [token.chain, token.symbol, token.address])).toEqual(CIRCLE_TESTNET_TOKENS);
  });

  it('describes every token as the mainnet preset does: CAIP-19 id, 6 decimals, paid by authorization, pegged', () => {
    for (const network of TESTNET_NETWORKS) {
      for (const token of network.tokens) {
        expect(token.chain).toBe(network.caip2);
        expect(token.decimals).toBe(6);
        expect(token.peggedTo).toBe(token.symbol === 'EURC' ? 'EUR' : 'USD');
        if (network.namespace === 'eip155') {
          // A mistyped contract address fails its EIP-55 checksum.
          expect(getAddress(token.address)).toBe(token.address);
          expect(token.caip19).toBe(`${network.caip2}/erc20:${token.address}`);
          expect(token.method).toBe('eip3009');
        } else {
          expect(token.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
          expect(token.caip19).toBe(`${network.caip2}/token:${token.address}`);
          expect(token.method).toBe('spl');
        }
      }
    }
    const mainnets = new Set(MAINNET_NETWORKS.map((network) => network.caip2));
    expect(TESTNET_NETWORKS.filter((network) => mainnets.has(network.caip2))).toEqual([]);
  });

  it('enables exactly the testnets whose RPC URL is set, from the same variables as mainnet', async () => {
    const env = {
      RPC_URL_EIP155_84532: 'https://base-sepolia.example',
      RPC_URL_SOLANA_ETWTRABZAYQ6IMFEYKOURU166VU2XQA1: 'https://solana-devnet.example',
      // A mainnet's URL does not enable anything on the testnets.
      RPC_URL_EIP155_8453: 'https://base.example',
    };
    expect(testnetNetworks(env).map((network) => [network.caip2, network.rpcUrl])).toEqual([
      ['eip155:84532', 'https://base-sepolia.example'],
      ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'https://solana-devnet.example'],
    ]);
    const { registry, devnet } = await setUpChains('testnet', dir, env);
    expect(devnet).toBeUndefined();
    expect(registry.networks.map((network) => network.caip2)).toEqual([
      'eip155:84532',
      'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    ]);
    expect(registry.token('eip155:84532/erc20:0x036cbd53842c5426634e7929541ec2318f3dcf7e')?.symbol).toBe('USDC');
  });

  it('refuses to start without any testnet RPC URL, naming one', async () => {
    const refused = setUpChains('testnet', dir, { RPC_URL_EIP155_8453: 'https://base.example' });
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/CHAINS=testnet needs at least one RPC URL, e.g. RPC_URL_EIP155_84532/);
  });

  it('runs the service on them: GET /v1/networks lists every testnet and token, never an RPC URL', async () => {
    const server = await startServerProcess({
      DATABASE_URL: inject('databaseUrl'),
      DEMO_PARTNER: 'never',
      CHAINS: 'testnet',
      LOG_LEVEL: 'error',
      RPC_URL_EIP155_8453: '',
      ...ALL_TESTNET_RPC_URLS,
    });
    try {
      const listed = await call(server, '/v1/networks');
      expect(listed.status).toBe(200);
      const networks = listed.body.networks as Array<{ id: string; tokens: Array<{ asset: string; symbol: string }> }>;
      expect(networks.map((network) => network.id)).toEqual(TESTNET_NETWORKS.map((network) => network.caip2));
      expect(networks.flatMap((network) => network.tokens.map((token) => token.asset))).toEqual(
        TESTNET_NETWORKS.flatMap((network) => network.tokens.map((token) => token.caip19)),
      );
      expect(listed.text).not.toContain('127.0.0.1');

      // paygate-wallet takes the testnets by their short names (their nodes are unreachable here, so the gateway
      // answers 502 naming the network the name stood for).
      const partner = await runCli(['partner', 'create', '--name', 'Testnet partner'], {
        DATABASE_URL: inject('databaseUrl'),
      });
      const { apiKey } = JSON.parse(partner.stdout);
      const merchant = await call(server, '/v1/merchants', {
        method: 'POST',
        headers: { 'api-key': apiKey, 'idempotency-key': 'testnet-merchant' },
        body: { merchantName: 'Testnet Shop', merchantEmail: 'owner@testnet-shop.com' },
      });
      const payment = await call(server, '/v1/payments', {
        method: 'POST',
        headers: { 'api-key': apiKey, 'merchant-id': merchant.body.merchant.id },
        body: { amount: { unit: 'iso4217/USD', value: '100' }, referenceId: 'testnet-1' },
      });
      const pay = (network: string) =>
        runWallet(['pay', payment.body.paymentId, '--network', network, '--evm-key', `0x${'33'.repeat(32)}`], {
          PAYGATE_API_KEY: apiKey,
          BASE_URL: server.url,
        });
      const [opSepolia, arbitrum] = await Promise.all([pay('op-sepolia'), pay('arbitrum')]);
      expect(opSepolia.code).toBe(1);
      expect(opSepolia.stderr).toMatch(/502 bad_gateway: .*eip155:11155420\b/);
      expect(arbitrum.code).toBe(1);
      expect(arbitrum.stderr).toMatch(/does not pay on arbitrum; it accepts .*arbitrum-sepolia \(eip155:421614\)/);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
