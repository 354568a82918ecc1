// Builds the package in the current folder to dist/ (ESM JavaScript and declarations, by tsc with its
// tsconfig.build.json) beside the current build and then swaps it in, so that a process reading dist/ meanwhile (the
// CLI, a bundler) sees the old or the new build, never half of one.
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const next = `dist.next-${process.pid}`;
rmSync(next, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', next], { stdio: 'inherit' });
const previous = [];
for (let attempt = 0; ; attempt++) {
  previous.push(`dist.previous-${process.pid}-${attempt}`);
  try {
    renameSync('dist', previous[attempt]);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  try {
    renameSync(next, 'dist');
    break;
  } catch (error) {
    // Another build swapped its dist/ in between the two renames: move that one aside too.
    if (!['ENOTEMPTY', 'EEXIST'].includes(error.code) || attempt === 5) throw error;
  }
}
for (const folder of previous) rmSync(folder, { recursive: true, force: true });
