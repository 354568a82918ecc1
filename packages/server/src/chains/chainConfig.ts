import fs from 'node:fs/promises';
import path from 'node:path';
import { type Devnet, startDevnet } from '@paygate/devnet';
import { ConfigError } from '../config.ts';
import { networksFromDevnet } from './devnetNetworks.ts';
import { ChainRegistry, type NetworkInfo } from './registry.ts';
import { MAINNET_NETWORKS } from './mainnets.ts';
import { TESTNET_NETWORKS } from './testnets.ts';

export interface ChainSetup {
  registry: ChainRegistry;
  /** The local devnet this process started, when CHAINS=devnet. */
  devnet?: Devnet;
}

/** The env variable holding the RPC URL of a network: `RPC_URL_EIP155_8453`, `RPC_URL_SOLANA_5EYKT4US...`. */
export function rpcUrlVariable(caip2: string): string {
  return `RPC_URL_${caip2.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
}

/**
 * A network's RPC URLs as configured: one URL, or several separated by commas (in a CHAINS file also a JSON array of
 * URLs), tried in that order. Returns them as one comma-separated list, each trimmed; an empty entry or one that is
 * not an http(s) URL is refused, naming `where` it was set and the entry's position, never the URL (it may hold a
 * key). A comma inside a URL is written `%2C`.
 */
export function parseRpcUrls(value: unknown, where: string): string {
  const parts = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (!parts?.length) throw new ConfigError(`${where} must be an RPC URL or a comma-separated list of them`);
  return parts
    .map((part: unknown, index) => {
      const entry = `${where}: entry ${index + 1} of ${parts.length}`;
      if (typeof part !== 'string') throw new ConfigError(`${entry} is not a string`);
      const url = part.trim();
      if (!url) throw new ConfigError(`${entry} is empty; separate URLs with single commas`);
      let protocol: string;
      try {
        protocol = new URL(url).protocol;
      } catch {
        throw new ConfigError(`${entry} is not a URL`);
      }
      if (protocol !== 'http:' && protocol !== 'https:') throw new ConfigError(`${entry} is not an http(s) URL`);
      return url;
    })
    .join(',');
}

/** A preset's networks whose RPC URL is configured, each with it. */
function configuredNetworks(preset: NetworkInfo[], env: Record<string, string | undefined>): NetworkInfo[] {
  return preset.flatMap((network) => {
    const variable = rpcUrlVariable(network.caip2);
    const rpcUrl = env[variable];
    return rpcUrl ? [{ ...network, rpcUrl: parseRpcUrls(rpcUrl, variable) }] : [];
  });
}

/** The mainnet preset, limited to the networks whose RPC URL is configured. */
export function mainnetNetworks(env: Record<string, string | undefined>): NetworkInfo[] {
  return configuredNetworks(MAINNET_NETWORKS, env);
}

/** The public testnet preset (`CHAINS=testnet`), limited to the networks whose RPC URL is configured. */
export function testnetNetworks(env: Record<string, string | undefined>): NetworkInfo[] {
  return configuredNetworks(TESTNET_NETWORKS, env);
}

const PRESETS: Record<string, { networks: typeof mainnetNetworks; example: string }> = {
  mainnet: { networks: mainnetNetworks, example: 'eip155:8453' },
  testnet: { networks: testnetNetworks, example: 'eip155:84532' },
};

async function networksFromFile(file: string): Promise<NetworkInfo[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`CHAINS file ${file} could not be read as JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError(`CHAINS file ${file} must hold an array of networks`);
  return (parsed as (Omit<NetworkInfo, 'rpcUrl'> & { rpcUrl?: unknown })[]).map((network, index) =>
    network.rpcUrl === undefined
      ? (network as NetworkInfo)
      : {
          ...network,
          rpcUrl: parseRpcUrls(network.rpcUrl, `CHAINS file ${file}, network ${network.caip2 ?? index + 1}, rpcUrl`),
        },
  );
}

/**
 * The chains this process pays on (CHAINS): `devnet` starts local chains in DATA_DIR/devnet; `mainnet` and
 * `testnet` use the real networks, or the public testnets, whose RPC_URL_* is set; anything else is a JSON file of
 * networks.
 */
export async function setUpChains(
  chains: string,
  dataDir: string,
  env: Record<string, string | undefined>,
  log?: (line: string) => void,
): Promise<ChainSetup> {
  if (chains === 'devnet') {
    const devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet'), log });
    return { registry: new ChainRegistry(networksFromDevnet(devnet.manifest)), devnet };
  }
  const preset = Object.hasOwn(PRESETS, chains) ? PRESETS[chains] : undefined;
  const networks = preset ? preset.networks(env) : await networksFromFile(path.resolve(chains));
  if (!networks.length) {
    throw new ConfigError(
      preset
        ? `CHAINS=${chains} needs at least one RPC URL, e.g. ${rpcUrlVariable(preset.example)}`
        : `CHAINS file ${chains} lists no networks`,
    );
  }
  return { registry: new ChainRegistry(networks) };
}
