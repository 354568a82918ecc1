import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PackedInstall {
  /** The consumer project: a package.json, the tarball installed in node_modules and its dependencies. */
  dir: string;
  /** Paths of the files in the tarball, relative to the package. */
  packedFiles: string[];
  /** What `npm install` of the tarball warned about (`npm warn ...` lines), such as scripts it would not run. */
  installWarnings: string[];
  /** Runs `node <script>` in the project with `args`; resolves with its stdout. */
  node(script: string, args?: string[]): Promise<string>;
  /**
   * Type-checks the project's TypeScript files as a strict project would, resolving modules as Node does (`nodenext`,
   * the default) or as a bundler does (`bundler`); resolves with tsc's output.
   */
  typecheck(moduleResolution?: 'nodenext' | 'bundler'): Promise<{ ok: boolean; output: string }>;
  remove(): Promise<void>;
}

/**
 * Packs a workspace package with `npm pack` (which builds it) and installs the tarball into a fresh project outside
 * the repository, as a user of the published package would: npm installs only what the package declares, from the
 * npm cache or the registry. `alongside`: workspace packages it depends on, packed and installed with it, as the
 * registry would serve them. `files` are written into the project first (name to content).
 */
export async function packAndInstall(
  packageDir: string,
  files: Record<string, string> = {},
  alongside: string[] = [],
): Promise<PackedInstall> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'paygate-packed-'));
  const dir = path.join(root, 'consumer');
  try {
    const tarballs: { filename: string; files: { path: string }[] }[] = [];
    for (const folder of [packageDir, ...alongside]) {
      const packed = await run('npm', ['pack', '--json', '--pack-destination', root], {
        cwd: folder,
        maxBuffer: 16 << 20,
      });
      tarballs.push(...(JSON.parse(packed.stdout) as typeof tarballs));
    }
    const [tarball] = tarballs as [(typeof tarballs)[number]];
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
    );
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
    const installed = await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        ...tarballs.map((packed) => path.join(root, packed.filename)),
      ],
      { cwd: dir, maxBuffer: 16 << 20 },
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    return {
      dir,
      packedFiles: tarball.files.map((file) => file.path),
      installWarnings: installed.stderr.split('\n').filter((line) => line.startsWith('npm warn')),
      node: async (script, args = []) =>
        (await run(process.execPath, [script, ...args], { cwd: dir, maxBuffer: 16 << 20 })).stdout,
      typecheck: async (moduleResolution = 'nodenext') => {
        const tsconfig = {
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2022', 'DOM'],
            module: moduleResolution === 'nodenext' ? 'NodeNext' : 'ESNext',
            moduleResolution,
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: [],
          },
          include: ['*.ts'],
        };
        await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
        try {
          const { stdout } = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir });
          return { ok: true, output: stdout };
        } catch (error) {
          return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
        }
      },
      remove: () => rm(root, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}
