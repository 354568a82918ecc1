// No two folders of the server import each other: a folder that needs another's part while that one needs it back
// means the part belongs to one of them. dependency-cruiser's folder rules are not filtered by its known violations,
// so this reads its JSON and compares each pair of folders importing each other with `.folder-cycles-known.json`:
// the pairs that were so when the check was written, to be removed as they are mended and never added to. A file
// directly in src/ (app.ts, context.ts) counts as a folder of its own.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = 'packages/server/src/';
const KNOWN = '.folder-cycles-known.json';

const depcruise = fileURLToPath(new URL('../node_modules/.bin/depcruise', import.meta.url));
const cruise = JSON.parse(
  execFileSync(depcruise, [SRC, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', '--no-ignore-known'], {
    maxBuffer: 256 * 1024 * 1024,
  }).toString(),
);

const folderOf = (path) => {
  const inside = path.slice(SRC.length);
  return inside.includes('/') ? posix.dirname(inside) : inside;
};
const imports = new Set();
for (const module of cruise.modules) {
  if (!module.source.startsWith(SRC)) continue;
  for (const dependency of module.dependencies) {
    if (!dependency.resolved.startsWith(SRC)) continue;
    const [from, to] = [folderOf(module.source), folderOf(dependency.resolved)];
    if (from !== to) imports.add(`${from} -> ${to}`);
  }
}
const mutual = new Set();
for (const edge of imports) {
  const [from, to] = edge.split(' -> ');
  if (imports.has(`${to} -> ${from}`)) mutual.add([from, to].sort().join(' <-> '));
}

const known = new Set(JSON.parse(readFileSync(new URL(`../${KNOWN}`, import.meta.url), 'utf8')));
const added = [...mutual].filter((pair) => !known.has(pair)).sort();
const mended = [...known].filter((pair) => !mutual.has(pair)).sort();
for (const pair of added) console.error(`folders import each other: ${pair}`);
for (const pair of mended) console.error(`no longer import each other, remove from ${KNOWN}: ${pair}`);
if (added.length || mended.length) process.exit(1);
console.log(`no new folders importing each other (${known.size} known pairs, in ${KNOWN})`);
