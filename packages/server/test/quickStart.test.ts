import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, NO_CHAIN_ENV, runCli, type ServerProcess, startServerProcess } from './support/serverProcess.ts';

const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The shell commands of the README's quick start after `npm start`, as written: every `sh` block of the section
 * but the first (`npm install`, `npm start`), without the line that keeps the key the service printed (the test
 * sets `PAYGATE_API_KEY` itself).
 */
async function quickStartCommands(): Promise<string> {
  const readme = await fs.readFile(path.join(REPOSITORY, 'README.md'), 'utf8');
  const section = /\n## Quick start\n([\s\S]*?)\n## /.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no Quick start section');
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  expect(blocks[0]).toContain('npm start');
  return blocks
    .slice(1)
    .join('\n')
    .split('\n')
    .filter((line) => !/^export PAYGATE_API_KEY=sk_\.\.\./.test(line))
    .join('\n');
}

interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs commands with bash from the repository's folder, as a person at a second terminal would. */
function shell(script: string, env: Record<string, string>): Promise<ShellRun> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: REPOSITORY,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe("the README's quick start, against a real paygate start", () => {
  let dataDir: string;
  let service: ServerProcess;
  /** What a second terminal has: the key the service printed, and the service's own PORT and DATA_DIR. */
  let terminal: Record<string, string>;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-readme-'));
    service = await startServerProcess({ DATA_DIR: dataDir, CHAINS: 'devnet' });
    const apiKey = (await service.waitForOutput(/apiKey: +(\S+)/))[1]!;
    terminal = { PAYGATE_API_KEY: apiKey, PORT: new URL(service.url).port, DATA_DIR: dataDir };
  });
  afterAll(async () => {
    await service?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('creates a merchant and a payment, opens its checkout page, pays it with paygate-wallet and lists it', async () => {
    const commands = await quickStartCommands();
    // The curl commands name the default port; the service here listens on a free one.
    const run = await shell(commands.replaceAll('localhost:8080', `localhost:${terminal.PORT}`), terminal);
    expect(run.code, run.stderr).toBe(0);

    const [link, paid, listed] = run.stdout.trim().split('\n');
    expect(link).toMatch(new RegExp(`^http://localhost:${terminal.PORT}/pay_\\w+$`));
    const paymentId = link!.slice(link!.lastIndexOf('/') + 1);

    const page = await fetch(link!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Corner Shop');

    expect(JSON.parse(paid!)).toEqual({
      paymentId,
      status: 'succeeded',
      txId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const payments = JSON.parse(listed!);
    expect(payments.data).toEqual([
      expect.objectContaining({
        paymentId,
        referenceId: 'order-1',
        status: 'succeeded',
        fiatAmount: expect.objectContaining({ unit: 'iso4217/USD', value: '1000' }),
        tokenAmount: expect.objectContaining({
          value: '10000000',
          display: expect.objectContaining({ assetSymbol: 'USDC' }),
        }),
        transaction: expect.objectContaining({ networkId: '31337', hash: JSON.parse(paid!).txId }),
      }),
    ]);

    // The ledger agrees with the records and with the chain: the devnet's funding of the collector, the payment
    // and the gas of its transfer, to the base unit.
    const audit = await runCli(['audit'], {
      DATA_DIR: dataDir,
      CHAINS: 'devnet',
      COLLECTOR_EVM_PRIVATE_KEY: NO_CHAIN_ENV.COLLECTOR_EVM_PRIVATE_KEY,
      COLLECTOR_SOLANA_SEED: NO_CHAIN_ENV.COLLECTOR_SOLANA_SEED,
    });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    const checks = audit.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const usdc = payments.data[0].tokenAmount.unit.slice('caip19/'.length);
    expect(checks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: 'merchant_balance', asset: usdc, difference: '0' }),
        expect.objectContaining({ check: 'collector_balance', asset: usdc, difference: '0' }),
        expect.objectContaining({ check: 'collector_balance', asset: 'eip155:31337/slip44:60', difference: '0' }),
      ]),
    );
  });

  it('paygate-wallet names the networks it takes and the options a link from elsewhere needs', async () => {
    const created = await shell(
      `curl -s -X POST http://localhost:${terminal.PORT}/v1/merchants -H "Api-Key: $PAYGATE_API_KEY" ` +
        `-H 'Idempotency-Key: hints' -H 'Content-Type: application/json' ` +
        `-d '{"merchantName": "Hint Shop", "merchantEmail": "owner@hint-shop.com"}'`,
      terminal,
    );
    const merchantId = JSON.parse(created.stdout).merchant.id;
    const payment = await shell(
      `curl -s -X POST http://localhost:${terminal.PORT}/v1/payments -H "Api-Key: $PAYGATE_API_KEY" ` +
        `-H 'Merchant-Id: ${merchantId}' -H 'Content-Type: application/json' ` +
        `-d '{"amount": {"unit": "iso4217/USD", "value": "250"}, "referenceId": "hints-1"}'`,
      terminal,
    );
    const { paymentId, gatewayUrl } = JSON.parse(payment.stdout);

    const unknown = await shell(`npx paygate-wallet pay ${gatewayUrl} --network devnet-c`, terminal);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /the service does not pay on devnet-c; it accepts devnet-a \(eip155:31337\), devnet-b \(eip155:31338\), solana \(solana:\w+\)/,
    );

    const elsewhere = await shell(`npx paygate-wallet pay https://pay.example.com/${paymentId}`, terminal);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain(
      `is not a payment link of http://localhost:${terminal.PORT}: pass --checkout-url https://pay.example.com and --gateway-url`,
    );

    const elsewhereData = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-readme-other-'));
    try {
      const noKeys = await shell(`npx paygate-wallet pay ${paymentId}`, { ...terminal, DATA_DIR: elsewhereData });
      expect(noKeys.code).toBe(1);
      expect(noKeys.stderr).toContain(`no ${path.join(elsewhereData, 'devnet', 'manifest.json')}; set DATA_DIR`);
    } finally {
      await fs.rm(elsewhereData, { recursive: true, force: true });
    }

    // Solana by its short name, and the payment id alone: the gateway found through PORT.
    const solana = await shell(`npx paygate-wallet pay ${paymentId} --network solana --token USDC`, terminal);
    expect(solana.code, solana.stderr).toBe(0);
    expect(JSON.parse(solana.stdout)).toMatchObject({ paymentId, status: 'succeeded' });
  });
});
