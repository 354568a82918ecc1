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
        `no keys: pass --evm-key or --solana-key, or use the devnet's buyers: no ${path.join(options.devnetDir, 'manifest.json')}; ` +
          'set DATA_DIR as the service has it (or --devnet-dir), with paygate start or paygate devnet running there',
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

/** A network the service accepts, as `GET /v1/networks` lists it. */
interface AcceptedNetwork {
  id: string;
  name: string;
}

/**
 * Short names of a network, from its name: `Base Sepolia` is `base-sepolia`, `Devnet EVM A` also `devnet-a`,
 * `Arbitrum One` also `arbitrum`, `OP Mainnet` also `op`; and the namespace alone (`solana`) when the service
 * accepts one network of it.
 */
function shortNames(network: AcceptedNetwork, all: AcceptedNetwork[]): string[] {
  const words = network.name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const names = new Set([words.join('-')]);
  const shorter = words.filter((word) => !['evm', 'one', 'mainnet'].includes(word));
  if (shorter.length) names.add(shorter.join('-'));
  const namespace = network.id.split(':')[0]!;
  if (all.filter((other) => other.id.startsWith(`${namespace}:`)).length === 1) names.add(namespace);
  return [...names];
}

/** `--network` as a CAIP-2 id: given as one, or a short name of a network the service accepts. */
async function resolveNetwork(network: string | undefined, gatewayUrl: string): Promise<string | undefined> {
  if (network === undefined || network.includes(':')) return network;
  const url = `${gatewayUrl.replace(/\/+$/, '')}/v1/networks`;
  let accepted: AcceptedNetwork[];
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    accepted = ((await response.json()) as { networks: AcceptedNetwork[] }).networks;
  } catch (error) {
    throw new CliError(
      `cannot look up network ${network} at ${url} (${(error as Error).message}): pass its CAIP-2 id, or --gateway-url`,
    );
  }
  const wanted = network.toLowerCase();
  const found = accepted.find((candidate) => shortNames(candidate, accepted).includes(wanted));
  if (found) return found.id;
  const known = accepted.map((candidate) => `${shortNames(candidate, accepted).at(-1)} (${candidate.id})`);
  throw new CliError(`the service does not pay on ${network}; it accepts ${known.join(', ')}`);
}

/** Where the service is, as the service itself derives it: BASE_URL, else http://localhost:$PORT. */
function serviceUrl(env: NodeJS.ProcessEnv): string {
  return (env.BASE_URL || `http://localhost:${env.PORT || '8080'}`).replace(/\/+$/, '');
}

/** Names the options a link from elsewhere needs: the checkout address it starts with and the service's API. */
function linkHint(link: string, options: PayOptions): string {
  const checkoutUrl = options.checkoutUrl ?? options.gatewayUrl;
  const base = `${link} is not a payment link of ${checkoutUrl}`;
  const match = /^(https?:\/\/.+)\/(?:\?pid=)?(pay_[A-Za-z0-9_-]+)\/?$/.exec(link);
  if (!match) return `${base}: pass the link the service made, or the payment id`;
  return `${base}: pass --checkout-url ${match[1]} and --gateway-url <the service's BASE_URL> (or set CHECKOUT_URL and BASE_URL, or PORT, as the service has them)`;
}

function describeOption(option: PaymentOption): string {
  return `${option.amount.display?.assetSymbol ?? option.amount.unit} from ${option.account}`;
}

async function pay(link: string, given: PayOptions): Promise<boolean> {
  const checkoutUrl = given.checkoutUrl ?? given.gatewayUrl;
  const parsed = parsePaymentLink(link, { checkoutUrl });
  if (!parsed) throw new CliError(linkHint(link, given));
  const { paymentId } = parsed;
  const options = { ...given, network: await resolveNetwork(given.network, given.gatewayUrl) };
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
    .option(
      '--network <name>',
      'pay only on this chain: a name the service lists, e.g. devnet-a, devnet-b, solana, base-sepolia, or a CAIP-2 id',
    )
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
      new Option('--gateway-url <url>', "the service's API address")
        .env('PAYGATE_GATEWAY_URL')
        .default(serviceUrl(process.env), 'BASE_URL, else http://localhost:$PORT, as the service'),
    )
    .addOption(
      new Option(
        '--checkout-url <url>',
        'the address payment links start with (default: CHECKOUT_URL, else the gateway URL, as the service)',
      )
        .env('PAYGATE_CHECKOUT_URL')
        .default(process.env.CHECKOUT_URL || undefined),
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
