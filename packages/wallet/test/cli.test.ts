import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../../server/test/support/serverProcess.ts';
import { type DevnetGateway, startDevnetGateway } from './support/devnetGateway.ts';

const WALLET_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/paygate-wallet.js');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `paygate-wallet` as its own process, as a developer would from a shell. */
function runWallet(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [WALLET_BIN, ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

let gw: DevnetGateway;
let connection: string[];

beforeAll(async () => {
  gw = await startDevnetGateway();
  connection = [
    '--gateway-url',
    gw.server.url,
    '--app-id',
    gw.app.appId,
    '--client-id',
    gw.app.clientId,
    '--devnet-dir',
    gw.devnetDir,
  ];
}, 180_000);

afterAll(async () => {
  await gw?.close();
});

function expectOneLineError(run: CliRun, pattern: RegExp): void {
  expect(run.code, run.stderr).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/^paygate-wallet: [^\n]+\n$/);
  expect(run.stderr).toMatch(pattern);
}

describe('paygate-wallet pay', () => {
  it("pays a link with the devnet buyer's keys and prints one JSON line once final", async () => {
    const { paymentId, gatewayUrl } = await gw.newPayment();
    const run = await runWallet(['pay', gatewayUrl, ...connection, '--network', gw.evmChain, '--token', 'usdc']);

    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0]!);
    expect(printed).toEqual({ paymentId, status: 'succeeded', txId: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await gw.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: {
        accountCaip10: `${gw.evmChain}:${gw.buyer('alice').evmAddress}`,
        accountProviderName: 'Wallet SDK test',
      },
      tokenAmount: { display: { assetSymbol: 'USDC' } },
      transaction: { hash: printed.txId },
    });
  });

  it('pays USDS with one EIP-2612 permit signature, the service relaying it', async () => {
    const { paymentId, gatewayUrl } = await gw.newPayment();
    const run = await runWallet(['pay', gatewayUrl, ...connection, '--network', gw.evmChain, '--token', 'USDS']);

    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout.trim());
    expect(printed).toEqual({ paymentId, status: 'succeeded', txId: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await gw.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      tokenAmount: { value: '10000000000000000000', display: { assetSymbol: 'USDS' } },
    });
  });

  it('pays on Solana with a given key and the partner API key', async () => {
    const { paymentId } = await gw.newPayment();
    const run = await runWallet(
      ['pay', paymentId, '--gateway-url', gw.server.url, '--devnet-dir', gw.devnetDir, '--network', gw.solanaChain],
      { PAYGATE_API_KEY: gw.partner.apiKey, PAYGATE_WALLET_SOLANA_KEY: gw.buyer('erin').solanaSecretKey },
    );

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ paymentId, status: 'succeeded' });
    expect(await gw.listed(paymentId)).toMatchObject({
      buyer: { accountCaip10: `${gw.solanaChain}:${gw.buyer('erin').solanaAddress}` },
    });
  });

  it('sends --collected-data with the confirm when the payment asks for buyer data', async () => {
    const { paymentId, gatewayUrl } = await gw.newPaymentNeedingData();
    const fields = [
      { id: 'fullName', value: 'Ada Lovelace' },
      { id: 'dateOfBirth', value: '1990-12-10' },
      { id: 'placeOfBirth', value: 'Marylebone, London' },
      { id: 'termsAccepted', value: true },
    ];
    const run = await runWallet([
      'pay',
      gatewayUrl,
      ...connection,
      '--buyer',
      'bob',
      '--token',
      'USDC',
      '--collected-data',
      JSON.stringify({ fields }),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ paymentId, status: 'succeeded' });
  });

  it('fails with one clear line and exit 1, leaving the payment payable', async () => {
    const { paymentId, gatewayUrl } = await gw.newPayment();

    const needingData = await gw.newPaymentNeedingData();
    const noAuth = ['--gateway-url', gw.server.url, '--devnet-dir', gw.devnetDir];
    const cases: Array<[string[], RegExp]> = [
      [['pay', gatewayUrl.replace('127.0.0.1', 'localhost'), ...connection], /not a payment link of/],
      [
        ['pay', gatewayUrl, ...connection, '--buyer', 'dave'],
        /no option matches; none offered to eip155:.*: they hold too little/,
      ],
      [['pay', gatewayUrl, ...connection, '--token', 'DOGE'], /no option matches --token DOGE; offered: .*USDC/],
      [['pay', gatewayUrl, ...noAuth, '--api-key', 'pk_wrong'], /the gateway answered 401 invalid_api_key/],
      [['pay', gatewayUrl, ...noAuth], /pass --api-key, or --app-id with --client-id/],
      [
        ['pay', needingData.gatewayUrl, ...connection, '--token', 'USDC'],
        /this payment needs buyer data: open http:\/\/\S+\/collect\/\S+ and pay from a wallet, or pass --collected-data/,
      ],
      [['pay', gatewayUrl, ...connection.slice(0, -2), '--devnet-dir', path.join(gw.devnetDir, 'missing')], /no keys/],
    ];
    // Processes run side by side: each spends most of its time compiling the sources.
    const runs = await Promise.all(cases.map(([args]) => runWallet(args)));
    for (const [index, run] of runs.entries()) expectOneLineError(run, cases[index]![1]);

    expect((await gw.client.getStatus(paymentId)).status).toBe('requires_action');
    expect((await gw.client.getStatus(needingData.paymentId)).status).toBe('requires_action');
  });
});
