// The command line runs the service's TypeScript sources compiled by esbuild into JavaScript chunks, kept in
// node_modules/.cache/paygate and built again when a source they came from changes. Loading through a TypeScript
// loader instead (tsx) sends every module, node_modules included, through its hooks: a database command took 1.4 s
// that way against 0.6 s compiled, and `--help` 0.44 s against 0.16 s (bench/README.md, cli).
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const CACHE = path.join(PACKAGE, 'node_modules', '.cache', 'paygate');
const CURRENT = path.join(CACHE, 'current.json');
/** Builds left by earlier sources are removed this long after they stopped being current (a process may run on). */
const STALE_BUILD_MS = 7 * 24 * 3600_000;

/** A source file as it was when a build read it (checked one after another: some 400 small stats take ms). */
function fingerprint(file) {
  const found = statSync(file);
  return `${found.size}:${found.mtimeMs}`;
}

/** The build the sources match, if there is one. */
function currentBuild() {
  try {
    const current = JSON.parse(readFileSync(CURRENT, 'utf8'));
    return Object.entries(current.inputs).every(([file, seen]) => fingerprint(file) === seen) ? current : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Each source file of this repository is compiled as it is, with `import.meta.url` fixed to the file's own URL, so
 * the paths it finds beside itself (migrations, the pages' client code, package.json) stay where they are. Packages
 * stay imports, loaded from node_modules as Node loads them; the devnet package is TypeScript source and is compiled.
 */
const ownSources = {
  name: 'paygate-sources',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path === '@paygate/devnet' || args.path.startsWith('@paygate/devnet/') ? undefined : { external: true },
    );
    build.onLoad({ filter: /\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: 'ts',
    }));
  },
};

async function buildAgain() {
  const { build } = await import('esbuild');
  const id = `${Date.now()}-${randomBytes(4).toString('hex')}`;
  const outdir = path.join(CACHE, id);
  const result = await build({
    entryPoints: [path.join(PACKAGE, 'src', 'main.ts')],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir,
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'error',
    plugins: [ownSources],
  });
  const inputs = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = path.resolve(process.cwd(), input);
    inputs[file] = fingerprint(file);
  }
  const current = { id, entry: path.join(outdir, 'main.mjs'), inputs };
  // Written whole and renamed, so a process starting beside this one reads the old build or the new one.
  const written = `${CURRENT}.${id}`;
  await writeFile(written, JSON.stringify(current));
  await rename(written, CURRENT);
  await removeStaleBuilds(id);
  return current;
}

async function removeStaleBuilds(currentId) {
  for (const entry of await readdir(CACHE, { withFileTypes: true })) {
    const builtAt = Number(entry.name.split('-')[0]);
    if (entry.isDirectory() && entry.name !== currentId && Date.now() - builtAt > STALE_BUILD_MS) {
      await rm(path.join(CACHE, entry.name), { recursive: true, force: true });
    }
  }
}

/**
 * The compiled command line's entry module, built first when the sources changed; undefined when the cache cannot be
 * written (a read-only install), where the caller runs the sources through a TypeScript loader instead.
 */
export async function compiledEntry() {
  const current = currentBuild() ?? (await mkdir(CACHE, { recursive: true }).then(buildAgain, () => undefined));
  return current && pathToFileURL(current.entry).href;
}
