import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { privateKeyToAccount } from 'viem/accounts';
import { evmSignerFromAccount } from './evmAccountSigner.ts';
import { GatewayClient, GatewayError, type GatewayAuth } from './gatewayClient.ts';
import type { CollectedData, PaymentOption } from './gatewayTypes.ts';
import { parsePaymentLink } from './paymentLink.ts';
import { payWithOption } from './payWithOption.ts';
import type { Signers } from './signers.ts';
import { solanaSignerFromKeyPair } from './solanaSigner.ts';

/** The parts of the devnet manifest (`<DATA_DIR>/devnet/manifest.json`) the CLI reads. */
interface DevnetManifest {
  evm: Array<{ caip2: string; rpcUrl: string }>;
  solana: { caip2: string };
  buyers: Array<{ name: string; evmPrivateKey: `0x${string}`; solanaSecretKey: string }>;
}

interface PayOptions {
  apiKey?: string;
  appId?: string;
  clientId?: string;
  network?: string;
  token?: string;
  evmKey?: string;
  solanaKey?: string;
  buyer: string;
  devnetDir: string;
  rpcUrl: string[];
  gatewayUrl: string;
  checkoutUrl?: string;
  maxPollMs: number;
  collectedData?: CollectedData;
}

class CliError extends Error {
  override readonly name = 'CliError';
}

function readManifest(devnetDir: string): DevnetManifest | null {
  const file = path.join(devnetDir, 'manifest.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    return JSON.parse(text) as DevnetManifest;
  } catch {
    throw new CliError(`${file} is not JSON`);
  }
}

function authOf(options: PayOptions): GatewayAuth {
  if (options.apiKey) return { apiKey: options.apiKey };
  if (options.appId && options.clientId) return { appId: options.appId, clientId: options.clientId };
  throw new CliError('pass --api-key, or --app-id with --client-id');
}

function rpcUrlsOf(options: PayOptions, manifest: DevnetManifest | null): Record<string, string> {
  const urls: Record<string, string> = Object.fromEntries(
    (manifest?.evm ?? []).map((chain) => [chain.caip2, chain.rpcUrl]),
  );
  for (const entry of options.rpcUrl) {
    const match = /^(eip155:\d+)=(https?:\/\/.+)$/.exec(entry);
    if (!match) throw new CliError(`--rpc-url takes <eip155 chain>=<url>, not ${entry}`);
    urls[match[1]!] = match[2]!;
  }
  return urls;
}

interface Wallet {
  accounts: string[];
  signers: Signers;
}

/** The keys to pay with (given ones, else the devnet buyer's) and their accounts on every known chain. */
async function walletOf(options: PayOptions, manifest: DevnetManifest | null): Promise<Wallet> {
  let { evmKey, solanaKey } = options;
  if (!evmKey && !solanaKey) {
    if (!manifest) {
      throw new CliError(
        `no keys: pass --evm-key or --solana-key, or start the devnet (paygate start or paygate devnet) so that ${path.join(options.devnetDir, 'manifest.json')} exists`,
      );
    }
    const buyer = manifest.buyers.find((candidate) => candidate.name === options.buyer);
    if (!buyer)
      throw new CliError(
        `the devnet has no buyer ${options.buyer} (it has ${manifest.buyers.map((b) => b.name).join(', ')})`,
      );
    ({ evmPrivateKey: evmKey, solanaSecretKey: solanaKey } = buyer);
  }
  const rpcUrls = rpcUrlsOf(options, manifest);
  const wanted = (caip2: string) => options.network === undefined || options.network === caip2;
  const wallet: Wallet = { accounts: [], signers: {} };
  if (evmKey) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(evmKey))
      throw new CliError('--evm-key must be a 0x-prefixed 32-byte hex private key');
    const account = privateKeyToAccount(evmKey as `0x${string}`);
    wallet.signers.eip155 = evmSignerFromAccount(account, { rpcUrls });
    const chains = Object.keys(rpcUrls);
    if (options.network?.startsWith('eip155:') && !chains.includes(options.network)) chains.push(options.network);
    wallet.accounts.push(...chains.filter(wanted).map((caip2) => `${caip2}:${account.address}`));
  }
  if (solanaKey) {
    let signer: ReturnType<typeof solanaSignerFromKeyPair>;
    try {
      signer = solanaSignerFromKeyPair(solanaKey);
      const address = await signer.address();
      const caip2 = options.network?.startsWith('solana:') ? options.network : manifest?.solana.caip2;
      if (caip2 && wanted(caip2)) wallet.accounts.push(`${caip2}:${address}`);
    } catch (error) {
      throw new CliError(`--solana-key is not a Solana secret key: ${(error as Error).message}`);
    }
    wallet.signers.solana = signer;
  }
  if (!wallet.accounts.length) {
    throw new CliError(
      options.network
        ? `no account on ${options.network}: the keys given do not pay there, or its RPC URL is unknown (--rpc-url)`
        : 'no chain known to pay on: pass --network (and --rpc-url for EVM chains)',
    );
  }
  return wallet;
}

function describeOption(option: PaymentOption): string {
  return `${option.amount.display?.assetSymbol ?? option.amount.unit} from ${option.account}`;
}

async function pay(link: string, options: PayOptions): Promise<boolean> {
  const checkoutUrl = options.checkoutUrl ?? options.gatewayUrl;
  const parsed = parsePaymentLink(link, { checkoutUrl });
  if (!parsed) throw new CliError(`${link} is not a payment link of ${checkoutUrl} (set --checkout-url)`);
  const { paymentId } = parsed;
  const manifest = readManifest(options.devnetDir);
  const wallet = await walletOf(options, manifest);
  const client = new GatewayClient({ baseUrl: options.gatewayUrl, auth: authOf(options) });

  const { options: offered } = await client.getOptions(paymentId, { accounts: wallet.accounts });
  const token = options.token?.toUpperCase();
  const matching = offered.filter(
    (option) =>
      (options.network === undefined || option.account.startsWith(`${options.network}:`)) &&
      (token === undefined || option.amount.display?.assetSymbol.toUpperCase() === token),
  );
  const option = matching[0];
  if (!option) {
    const choices = offered.length
      ? `; offered: ${offered.map(describeOption).join(', ')}`
      : `; none offered to ${wallet.accounts.join(', ')}: they hold too little, or the service does not pay on their chains`;
    throw new CliError(
      `no option matches${options.token ? ` --token ${options.token}` : ''}${options.network ? ` --network ${options.network}` : ''}${choices}`,
    );
  }
  if (option.collectData && !options.collectedData) {
    throw new CliError(
      `this payment needs buyer data: open ${option.collectData.url} and pay from a wallet, or pass --collected-data '{"fields":[{"id":...,"value":...}]}'`,
    );
  }
  const result = await payWithOption({
    client,
    paymentId,
    option,
    signers: wallet.signers,
    maxPollMs: options.maxPollMs,
    ...(options.collectedData ? { collectedData: options.collectedData } : {}),
  });
  process.stdout.write(`${JSON.stringify({ paymentId, status: result.status, txId: result.info?.txId ?? null })}\n`);
  return result.status === 'succeeded';
}

function oneLine(error: unknown): string {
  if (error instanceof GatewayError) return `the gateway answered ${error.status} ${error.code}: ${error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*\n\s*/g, ' ');
}

function nonNegativeInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw new CliError(`not a non-negative integer: ${value}`);
  return parsed;
}

function collectedDataOf(value: string): CollectedData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new CliError('--collected-data is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { fields?: unknown }).fields)) {
    throw new CliError('--collected-data must be {"fields":[{"id":...,"value":...}]}');
  }
  return parsed as CollectedData;
}

function buildCli(): Command {
  const program = new Command('paygate-wallet')
    .description('pay paygate payment links from the command line')
    .exitOverride();
  program.configureOutput({
    writeErr: (text) => process.stderr.write(text.startsWith('error:') ? `paygate-wallet: ${text}` : text),
  });
  program
    .command('pay')
    .description('pay a payment link with the first matching option and print {"paymentId","status","txId"} once final')
    .argument('<link>', 'payment link, wc: URI with a pay parameter, or payment id')
    .addOption(new Option('--api-key <key>', 'partner API key').env('PAYGATE_API_KEY').conflicts(['appId', 'clientId']))
    .addOption(new Option('--app-id <id>', 'wallet app id (with --client-id)').env('PAYGATE_APP_ID'))
    .addOption(new Option('--client-id <id>', 'client id sent with --app-id').env('PAYGATE_CLIENT_ID'))
    .option('--network <caip2>', 'pay only on this chain, e.g. eip155:31337')
    .option('--token <symbol>', 'pay only in this token, e.g. USDC')
    .addOption(
      new Option('--evm-key <hex>', 'EVM private key (default: the devnet buyer)').env('PAYGATE_WALLET_EVM_KEY'),
    )
    .addOption(
      new Option('--solana-key <base58>', 'Solana secret key (default: the devnet buyer)').env(
        'PAYGATE_WALLET_SOLANA_KEY',
      ),
    )
    .option('--buyer <name>', 'devnet buyer whose keys pay when no key is given', 'alice')
    .addOption(
      new Option('--devnet-dir <dir>', 'directory of the devnet manifest').default(
        path.join(process.env.DATA_DIR || '.paygate', 'devnet'),
        '$DATA_DIR/devnet',
      ),
    )
    .option(
      '--rpc-url <chain=url>',
      'RPC URL of an EVM chain, e.g. eip155:8453=https://...; repeatable',
      (value: string, list: string[]) => [...list, value],
      [],
    )
    .addOption(
      new Option('--gateway-url <url>', "the service's base URL")
        .env('PAYGATE_GATEWAY_URL')
        .default('http://localhost:8080'),
    )
    .addOption(
      new Option('--checkout-url <url>', 'checkout URL payment links start with (default: the gateway URL)').env(
        'PAYGATE_CHECKOUT_URL',
      ),
    )
    .addOption(
      new Option(
        '--collected-data <json>',
        'buyer data the payment asks for, as {"fields":[{"id","value"}]}',
      ).argParser(collectedDataOf),
    )
    .addOption(
      new Option('--max-poll-ms <ms>', 'long-poll time per status request')
        .default(25_000)
        .argParser(nonNegativeInteger),
    )
    .action(async (link: string, options: PayOptions) => {
      if (!(await pay(link, options))) process.exitCode = 1;
    });
  return program;
}

/** Runs the CLI; every failure is one line on stderr and exit code 1. */
export async function runCli(argv: string[]): Promise<void> {
  const program = buildCli();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; commander already printed its usage error.
      process.exitCode = error.exitCode === 0 ? 0 : 1;
      return;
    }
    process.stderr.write(`paygate-wallet: ${oneLine(error)}\n`);
    process.exitCode = 1;
  }
}
