import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const WALLET_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function newestSourceMs(): Promise<number> {
  const sources = (await readdir(path.join(WALLET_DIR, 'src'))).filter((name) => name.endsWith('.ts'));
  const times = await Promise.all(
    sources.map(async (name) => (await stat(path.join(WALLET_DIR, 'src', name))).mtimeMs),
  );
  return Math.max(...times);
}

/**
 * Rebuilds the wallet's dist/ when a source file is newer than the build: the `paygate-wallet` bin and every
 * importer of `@paygate/wallet` outside TypeScript (the service's checkout bundle) run the build, so tests of them
 * must not run an old one. `npm test` builds first; this covers a test file run on its own after an edit.
 */
export async function ensureCurrentWalletBuild(): Promise<void> {
  const builtMs = await stat(path.join(WALLET_DIR, 'dist/index.js')).then(
    (built) => built.mtimeMs,
    () => 0,
  );
  if (builtMs >= (await newestSourceMs())) return;
  await promisify(execFile)(process.execPath, ['../../scripts/buildPackageDist.mjs'], { cwd: WALLET_DIR });
}
