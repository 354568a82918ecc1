import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../config.ts';
import { decryptKeystore } from './keystore.ts';

export interface CollectorKeys {
  /** 0x-prefixed secp256k1 private key of the EVM collector (same address on every EVM chain). */
  evmPrivateKey: `0x${string}`;
  /** 32-byte Ed25519 seed of the Solana collector, hex. */
  solanaSeedHex: string;
}

const KEY_FILE = 'collector-keys.json';

function checked(keys: CollectorKeys, source: string): CollectorKeys {
  if (!/^0x[0-9a-fA-F]{64}$/.test(keys.evmPrivateKey))
    throw new ConfigError(`${source}: the EVM collector key must be 32 bytes of hex with 0x`);
  if (!/^[0-9a-fA-F]{64}$/.test(keys.solanaSeedHex))
    throw new ConfigError(`${source}: the Solana collector seed must be 32 bytes of hex`);
  return keys;
}

/** Reads a passphrase typed at the terminal, without showing it. */
export type PassphrasePrompt = (question: string) => Promise<string>;

/**
 * The keys from their encrypted files (COLLECTOR_EVM_KEYSTORE, COLLECTOR_SOLANA_KEYSTORE), opened with the
 * passphrase in COLLECTOR_KEYSTORE_PASSWORD_FILE or, without one, typed at the terminal: never in the environment.
 */
async function keysFromKeystores(
  env: Record<string, string | undefined>,
  prompt: PassphrasePrompt | undefined,
): Promise<CollectorKeys> {
  const passwordFile = env.COLLECTOR_KEYSTORE_PASSWORD_FILE;
  let passphrase: string;
  if (passwordFile) {
    // One trailing line end is the file's, not the passphrase's.
    passphrase = (await fs.readFile(passwordFile, 'utf8')).replace(/\r?\n$/, '');
  } else if (prompt) {
    passphrase = await prompt('Passphrase of the collector keystores: ');
  } else {
    throw new ConfigError(
      'set COLLECTOR_KEYSTORE_PASSWORD_FILE (or start at a terminal to type it): the keystores need their passphrase',
    );
  }
  const open = async (variable: 'COLLECTOR_EVM_KEYSTORE' | 'COLLECTOR_SOLANA_KEYSTORE') => {
    const file = env[variable] as string;
    try {
      return (await decryptKeystore(JSON.parse(await fs.readFile(file, 'utf8')), passphrase)).toString('hex');
    } catch (error) {
      throw new ConfigError(`${variable} (${file}): ${(error as Error).message}`);
    }
  };
  const [evm, solana] = await Promise.all([open('COLLECTOR_EVM_KEYSTORE'), open('COLLECTOR_SOLANA_KEYSTORE')]);
  return checked({ evmPrivateKey: `0x${evm}`, solanaSeedHex: solana }, 'the collector keystores');
}

/**
 * The service's collector keys. From encrypted keystore files (production: COLLECTOR_EVM_KEYSTORE and
 * COLLECTOR_SOLANA_KEYSTORE, `paygate collector keystore` writes them), or from COLLECTOR_EVM_PRIVATE_KEY and
 * COLLECTOR_SOLANA_SEED; every process must share them. Otherwise, on a devnet only, generated on first start and
 * kept in DATA_DIR (`existing`: only read there, as a command that looks at the running service's collector does).
 * They are never logged.
 */
export async function loadCollectorKeys(
  env: Record<string, string | undefined>,
  dataDir: string,
  allowGenerated: boolean,
  options: { existing?: boolean; prompt?: PassphrasePrompt | undefined } = {},
): Promise<CollectorKeys> {
  const evmPrivateKey = env.COLLECTOR_EVM_PRIVATE_KEY;
  const solanaSeedHex = env.COLLECTOR_SOLANA_SEED;
  const keystores = [env.COLLECTOR_EVM_KEYSTORE, env.COLLECTOR_SOLANA_KEYSTORE].filter(Boolean).length;
  if (keystores && (evmPrivateKey || solanaSeedHex)) {
    throw new ConfigError(
      'set the collector keystores or COLLECTOR_EVM_PRIVATE_KEY and COLLECTOR_SOLANA_SEED, not both',
    );
  }
  if (keystores === 1) throw new ConfigError('set both COLLECTOR_EVM_KEYSTORE and COLLECTOR_SOLANA_KEYSTORE');
  if (keystores === 2) return keysFromKeystores(env, options.prompt);
  if (evmPrivateKey && solanaSeedHex) {
    return checked({ evmPrivateKey: evmPrivateKey as `0x${string}`, solanaSeedHex }, 'COLLECTOR_* variables');
  }
  if (!allowGenerated) {
    throw new ConfigError(
      'set COLLECTOR_EVM_PRIVATE_KEY and COLLECTOR_SOLANA_SEED: collector keys are generated only on the devnet',
    );
  }
  const file = path.join(dataDir, KEY_FILE);
  try {
    return checked(JSON.parse(await fs.readFile(file, 'utf8')) as CollectorKeys, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (options.existing) throw new ConfigError(`no collector keys in ${file}: start the service there first`);
  }
  const keys: CollectorKeys = {
    evmPrivateKey: `0x${randomBytes(32).toString('hex')}`,
    solanaSeedHex: randomBytes(32).toString('hex'),
  };
  await fs.mkdir(dataDir, { recursive: true });
  await fs
    .writeFile(file, JSON.stringify(keys), { mode: 0o600, flag: 'wx' })
    .catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  return checked(JSON.parse(await fs.readFile(file, 'utf8')) as CollectorKeys, file);
}

/** The collector's public addresses (EVM, Solana). */
export async function collectorAddresses(keys: CollectorKeys): Promise<{ evm: string; solana: string }> {
  const { privateKeyToAccount } = await import('viem/accounts');
  const { createKeyPairFromPrivateKeyBytes, getAddressFromPublicKey } = await import('@solana/kit');
  const keyPair = await createKeyPairFromPrivateKeyBytes(Buffer.from(keys.solanaSeedHex, 'hex'));
  return {
    evm: privateKeyToAccount(keys.evmPrivateKey).address,
    solana: await getAddressFromPublicKey(keyPair.publicKey),
  };
}
