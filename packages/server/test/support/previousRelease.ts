import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LATEST_RELEASE } from '../../src/db/migrations/released.ts';

const run = promisify(execFile);
const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const succeeds = (work: Promise<unknown>) =>
  work.then(
    () => true,
    () => false,
  );

export interface ReleaseTree {
  version: string;
  commit: string;
  /** Where its tree is, built and with its dependencies. */
  dir: string;
  /** Its `paygate` command line. */
  bin: string;
  remove(): Promise<void>;
}

/** Throws, naming what is missing, when this clone's history lacks `commit`. */
async function ensureCommit(version: string, commit: string): Promise<void> {
  const git = (...args: string[]) => run('git', ['-C', REPOSITORY, ...args]);
  if (await succeeds(git('cat-file', '-e', `${commit}^{commit}`))) return;
  const shallow = await git('rev-parse', '--is-shallow-repository').then(
    ({ stdout }) => stdout.trim() === 'true',
    () => undefined,
  );
  const missing = `release ${version}'s commit ${commit} (LATEST_RELEASE in packages/server/src/db/migrations/released.ts)`;
  if (shallow === undefined) throw new Error(`${missing} cannot be read: ${REPOSITORY} is not a git checkout`);
  if (shallow)
    throw new Error(`${missing} is not in this clone: it is shallow; \`git fetch --unshallow\` brings the history`);
  throw new Error(`${missing} is not in this clone's history; \`git fetch origin ${commit}\` brings it`);
}

/**
 * Links each entry of the node_modules folder `from` into `to` but those named in `leftOut` and the dot entries
 * (.bin, .cache): the release keeps a build cache of its own.
 */
async function linkEntries(from: string, to: string, leftOut: ReadonlySet<string> = new Set()): Promise<void> {
  await fs.mkdir(to, { recursive: true });
  for (const name of await fs.readdir(from)) {
    if (!name.startsWith('.') && !leftOut.has(name)) await fs.symlink(path.join(from, name), path.join(to, name));
  }
}

/**
 * Dependencies without an install: the third-party packages are this checkout's (the release's and the few added
 * since), linked from its node_modules folders; the workspace packages are the release's own folders, linked as npm
 * links them, so that its service runs its own sources and builds.
 */
async function linkDependencies(dir: string): Promise<void> {
  const manifest = async (folder: string) =>
    JSON.parse(await fs.readFile(path.join(dir, folder, 'package.json'), 'utf8')) as {
      name: string;
      workspaces: string[];
    };
  const { workspaces } = await manifest('.');
  const names = await Promise.all(workspaces.map(async (workspace) => (await manifest(workspace)).name));
  // Their scope (@paygate) holds only workspace packages: none of this checkout's is linked.
  const scopes = new Set(names.map((name) => name.split('/')[0] as string));
  await linkEntries(path.join(REPOSITORY, 'node_modules'), path.join(dir, 'node_modules'), scopes);
  for (const [index, name] of names.entries()) {
    const link = path.join(dir, 'node_modules', name);
    await fs.mkdir(path.dirname(link), { recursive: true });
    await fs.symlink(path.relative(path.dirname(link), path.join(dir, workspaces[index] as string)), link);
    // Versions a workspace needs apart from the rest, installed in its own node_modules.
    const nested = path.join(REPOSITORY, workspaces[index] as string, 'node_modules');
    if (await succeeds(fs.stat(nested)))
      await linkEntries(nested, path.join(dir, workspaces[index] as string, 'node_modules'));
  }
}

/**
 * The latest release's tree taken out of git into a folder of its own, given dependencies and built as `npm run
 * build` builds it, to run beside the current code. Fails, saying what is missing, when the history lacks it.
 */
export async function checkOutLatestRelease(): Promise<ReleaseTree> {
  const { version, commit } = LATEST_RELEASE;
  await ensureCommit(version, commit);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `paygate-release-${version}-`));
  const remove = () => fs.rm(dir, { recursive: true, force: true });
  try {
    const archive = path.join(dir, 'release.tar');
    await run('git', ['-C', REPOSITORY, 'archive', '--format=tar', `--output=${archive}`, commit]);
    await run('tar', ['-xf', archive, '-C', dir]);
    await fs.rm(archive);
    await linkDependencies(dir);
    await run('npm', ['run', 'build'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    await remove();
    throw error;
  }
  return { version, commit, dir, bin: path.join(dir, 'packages/server/bin/paygate.js'), remove };
}
