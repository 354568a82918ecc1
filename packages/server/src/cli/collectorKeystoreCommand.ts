import fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { UserFacingError } from '../userFacingError.ts';

interface KeystoreOptions {
  evmOut: string;
  solanaOut: string;
  passwordFile?: string;
  new?: boolean;
}

/** The passphrase to encrypt with: a file's (one trailing line end left out), or typed twice at the terminal. */
async function newPassphrase(passwordFile: string | undefined): Promise<string> {
  if (passwordFile) return (await fs.readFile(passwordFile, 'utf8')).replace(/\r?\n$/, '');
  const { terminalPassphrase } = await import('../terminalPassphrase.ts');
  const prompt = terminalPassphrase();
  if (!prompt) throw new UserFacingError('give --password-file, or run at a terminal to type the passphrase');
  const first = await prompt('Passphrase for the collector keystores: ');
  if ((await prompt('The same passphrase again: ')) !== first) throw new UserFacingError('the passphrases differ');
  return first;
}

/**
 * Writes the collector's keys as encrypted keystores (Web3 Secret Storage): the keys the service runs with now (from
 * COLLECTOR_EVM_PRIVATE_KEY and COLLECTOR_SOLANA_SEED, or a devnet's DATA_DIR), or new ones with `--new`. A file is
 * never overwritten; only the addresses are printed.
 */
async function writeKeystores(options: KeystoreOptions): Promise<void> {
  const [{ loadConfig }, { collectorAddresses, loadCollectorKeys }, { encryptKeystore }, { terminalPassphrase }] =
    await Promise.all([
      import('../config.ts'),
      import('../chains/collectorKeys.ts'),
      import('../chains/keystore.ts'),
      import('../terminalPassphrase.ts'),
    ]);
  if (
    options.passwordFile === undefined &&
    (process.env.COLLECTOR_EVM_KEYSTORE || process.env.COLLECTOR_SOLANA_KEYSTORE)
  ) {
    throw new UserFacingError('the collector already runs from keystores');
  }
  const config = loadConfig();
  const keys = options.new
    ? { evmPrivateKey: `0x${randomBytes(32).toString('hex')}` as const, solanaSeedHex: randomBytes(32).toString('hex') }
    : await loadCollectorKeys(process.env, config.dataDir, config.chains === 'devnet', {
        existing: true,
        prompt: terminalPassphrase(),
      });
  const passphrase = await newPassphrase(options.passwordFile);
  if (passphrase.length < 12) throw new UserFacingError('use a passphrase of at least 12 characters');
  const addresses = await collectorAddresses(keys);
  const files: [string, Uint8Array, string | undefined][] = [
    [options.evmOut, Buffer.from(keys.evmPrivateKey.slice(2), 'hex'), addresses.evm],
    [options.solanaOut, Buffer.from(keys.solanaSeedHex, 'hex'), undefined],
  ];
  for (const [file, secret, address] of files) {
    const keystore = await encryptKeystore(secret, passphrase, address ? { address } : {});
    await fs.writeFile(file, `${JSON.stringify(keystore)}\n`, { mode: 0o600, flag: 'wx' }).catch((error) => {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new UserFacingError(`${file} exists: not overwritten`);
      throw error;
    });
  }
  process.stdout.write(
    `${JSON.stringify({ evm: { address: addresses.evm, keystore: options.evmOut }, solana: { address: addresses.solana, keystore: options.solanaOut } })}\n`,
  );
}

export function addCollectorCommands(program: Command): void {
  const collector = program
    .command('collector')
    .description("the collector's keys, and its transactions the database does not hold");
  collector
    .command('keystore')
    .description(
      "write the collector's keys as encrypted keystores, for COLLECTOR_EVM_KEYSTORE and COLLECTOR_SOLANA_KEYSTORE",
    )
    .requiredOption('--evm-out <file>', 'where to write the EVM key (a Web3 Secret Storage file)')
    .requiredOption('--solana-out <file>', 'where to write the Solana seed (the same format)')
    .option('--password-file <file>', 'the passphrase, else typed at the terminal')
    .option('--new', 'new keys rather than those the service runs with now')
    .action((options: KeystoreOptions) => writeKeystores(options));
  collector
    .command('accept-unjournaled')
    .description(
      "take the collector's transactions on a network that the database does not hold (a restore to an older point, a transfer made with its key by hand) as sent, so the service sends there again: reconcile what they paid first",
    )
    .requiredOption('--network <caip2>', 'the network, e.g. eip155:8453')
    .action(async ({ network }: { network: string }) =>
      (await import('./operatorActions.ts')).collectorAcceptUnjournaled(network),
    );
}
