// The command line runs the service's TypeScript sources compiled by esbuild into JavaScript chunks, kept in
// node_modules/.cache/paygate and built again when a source they came from changes. Loading through a TypeScript
// loader instead (tsx) sends every module, node_modules included, through its hooks: a database command took 1.4 s
// that way against 0.6 s compiled, and `--help` 0.44 s against 0.16 s (bench/README.md, cli).
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const CACHE = path.join(PACKAGE, 'node_modules', '.cache', 'paygate');
const CURRENT = path.join(CACHE, 'current.json');
/**
 * Earlier builds are kept a week, and the newest few longer: a process started on one may still import its chunks.
 */
const KEPT_BUILD_MS = 7 * 24 * 3600_000;
const KEPT_BUILDS = 3;
/**
 * What makes a build besides the sources: this file, esbuild, the TypeScript settings and the exports of the
 * workspace packages compiled with the service.
 */
const BUILD_SETTINGS = [
  fileURLToPath(import.meta.url),
  createRequire(import.meta.url).resolve('esbuild/package.json'),
  path.join(PACKAGE, '..', '..', 'tsconfig.json'),
  path.join(PACKAGE, '..', 'devnet', 'package.json'),
  path.join(PACKAGE, '..', 'web', 'package.json'),
];
/** Workspace packages whose exports are TypeScript sources, which Node cannot load as they are. */
const COMPILED_PACKAGES = ['@paygate/devnet', '@paygate/web'];
/** Failures to write the cache, after which the sources run through tsx; anything else (a compile error) is shown. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC']);

/** A file as it was when a build read it (checked one after another: some 400 small stats take ms). */
function fingerprint(file) {
  const found = statSync(file);
  return `${found.size}:${found.mtimeMs}`;
}

/** The build this checkout's sources match, if there is one. */
function currentBuild() {
  try {
    const current = JSON.parse(readFileSync(CURRENT, 'utf8'));
    if (current.package !== PACKAGE) return undefined;
    return Object.entries(current.inputs).every(([file, seen]) => fingerprint(file) === seen) ? current : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Each source file of this repository is compiled as it is, with `import.meta.url` fixed to the file's own URL, so
 * the paths it finds beside itself (migrations, the consoles' browser code, package.json) stay where they are.
 * Packages stay imports, loaded from node_modules as Node loads them; the devnet and web packages are TypeScript
 * sources with no build of their own, and are compiled.
 * A file's fingerprint is taken before it is read, so one saved during the build makes the build stale, never current.
 */
function ownSources(inputs) {
  return {
    name: 'paygate-sources',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        COMPILED_PACKAGES.some((name) => args.path === name || args.path.startsWith(`${name}/`))
          ? undefined
          : { external: true },
      );
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        inputs[args.path] = fingerprint(args.path);
        return {
          contents: (await readFile(args.path, 'utf8')).replaceAll(
            'import.meta.url',
            JSON.stringify(pathToFileURL(args.path).href),
          ),
          loader: 'ts',
        };
      });
    },
  };
}

async function buildAgain() {
  const { build } = await import('esbuild');
  const id = `${Date.now()}-${randomBytes(4).toString('hex')}`;
  const outdir = path.join(CACHE, id);
  const inputs = Object.fromEntries(BUILD_SETTINGS.map((file) => [file, fingerprint(file)]));
  await build({
    entryPoints: [path.join(PACKAGE, 'src', 'cli', 'main.ts')],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir,
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    logLevel: 'error',
    plugins: [ownSources(inputs)],
  });
  const current = { id, package: PACKAGE, entry: path.join(outdir, 'main.mjs'), inputs };
  // Written whole and renamed, so a process starting beside this one reads the old build or the new one.
  const written = `${CURRENT}.${id}`;
  await writeFile(written, JSON.stringify(current));
  await rename(written, CURRENT);
  // Tidying only: a build that cannot be removed now is removed by a later one.
  await removeOldBuilds(id).catch(() => {});
  return current;
}

async function removeOldBuilds(currentId) {
  const builds = (await readdir(CACHE, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && entry.name !== currentId)
    .map((entry) => ({ name: entry.name, builtAt: Number(entry.name.split('-')[0]) }))
    .sort((a, b) => b.builtAt - a.builtAt);
  for (const build of builds.slice(KEPT_BUILDS)) {
    if (Date.now() - build.builtAt > KEPT_BUILD_MS) {
      await rm(path.join(CACHE, build.name), { recursive: true, force: true });
    }
  }
}

/**
 * The compiled command line's entry module, built first when the sources changed; undefined when the cache cannot be
 * written (a read-only install), where the caller runs the sources through a TypeScript loader instead.
 */
export async function compiledEntry() {
  let current = currentBuild();
  if (!current) {
    try {
      await mkdir(CACHE, { recursive: true });
      current = await buildAgain();
    } catch (error) {
      if (UNWRITABLE.has(error?.code)) return undefined;
      throw error;
    }
  }
  return pathToFileURL(current.entry).href;
}
