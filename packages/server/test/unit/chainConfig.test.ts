import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainnetNetworks, rpcUrlVariable, setUpChains } from '../../src/chains/chainConfig.ts';
import { collectorAddresses, loadCollectorKeys } from '../../src/chains/collectorKeys.ts';
import { ConfigError } from '../../src/config.ts';

describe('chain configuration', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-chains-'));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('names RPC URL variables after the CAIP-2 id', () => {
    expect(rpcUrlVariable('eip155:8453')).toBe('RPC_URL_EIP155_8453');
    expect(rpcUrlVariable('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBe(
      'RPC_URL_SOLANA_5EYKT4USFV8P8NJDTREPY1VZQKQZKVDP',
    );
  });

  it('enables exactly the mainnet networks whose RPC URL is set', () => {
    const networks = mainnetNetworks({
      RPC_URL_EIP155_8453: 'https://base.example',
      RPC_URL_SOLANA_5EYKT4USFV8P8NJDTREPY1VZQKQZKVDP: 'https://sol.example',
    });
    expect(networks.map((network) => [network.caip2, network.rpcUrl])).toEqual([
      ['eip155:8453', 'https://base.example'],
      ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'https://sol.example'],
    ]);
  });

  it('refuses mainnet without any RPC URL, and reads networks from a JSON file', async () => {
    await expect(setUpChains('mainnet', dir, {})).rejects.toThrow(/RPC_URL_EIP155_8453/);
    const file = path.join(dir, 'networks.json');
    const network = {
      caip2: 'eip155:10',
      namespace: 'eip155',
      name: 'OP',
      rpcUrl: 'https://op.example',
      confirmations: 3,
      blockTimeMs: 2000,
      tokens: [],
    };
    await fs.writeFile(file, JSON.stringify([network]));
    const { registry, devnet } = await setUpChains(file, dir, {});
    expect(devnet).toBeUndefined();
    expect(registry.network('eip155:10')).toEqual(network);
    await fs.writeFile(file, '{not json');
    await expect(setUpChains(file, dir, {})).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('collector keys', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-keys-'));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('generates keys once on the devnet, kept private in the data dir, and derives stable addresses', async () => {
    const [first, second] = await Promise.all([loadCollectorKeys({}, dir, true), loadCollectorKeys({}, dir, true)]);
    expect(second).toEqual(first);
    const stat = await fs.stat(path.join(dir, 'collector-keys.json'));
    expect(stat.mode & 0o077).toBe(0);
    const addresses = await collectorAddresses(first);
    expect(addresses.evm).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(addresses.solana).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(await collectorAddresses(await loadCollectorKeys({}, dir, true))).toEqual(addresses);
  });

  it('takes keys from the environment and refuses to generate them outside the devnet', async () => {
    const env = { COLLECTOR_EVM_PRIVATE_KEY: `0x${'ab'.repeat(32)}`, COLLECTOR_SOLANA_SEED: 'cd'.repeat(32) };
    expect(await loadCollectorKeys(env, dir, false)).toEqual({
      evmPrivateKey: env.COLLECTOR_EVM_PRIVATE_KEY,
      solanaSeedHex: env.COLLECTOR_SOLANA_SEED,
    });
    await expect(loadCollectorKeys({}, path.join(dir, 'other'), false)).rejects.toThrow(/COLLECTOR_EVM_PRIVATE_KEY/);
    await expect(loadCollectorKeys({ ...env, COLLECTOR_EVM_PRIVATE_KEY: '0x12' }, dir, false)).rejects.toThrow(
      /32 bytes/,
    );
  });
});
