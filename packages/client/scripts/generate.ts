/**
 * `npm run generate -w @paygate/client`: writes the files generated from the service's OpenAPI document (the API
 * types and the operations that take an idempotency key). With `--check`, writes nothing and exits 1 when a
 * committed file differs from what would be generated.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generateFiles } from './generateTypes.ts';
import { openApiDocument } from './openApiDocument.ts';

const check = process.argv.includes('--check');
const stale: string[] = [];
for (const [file, text] of Object.entries(await generateFiles(await openApiDocument()))) {
  const target = fileURLToPath(new URL(`../${file}`, import.meta.url));
  if (!check) {
    await writeFile(target, text);
    console.log(`wrote ${file}`);
  } else if ((await readFile(target, 'utf8').catch(() => '')) !== text) stale.push(file);
}
if (stale.length > 0) {
  console.error(`out of date: ${stale.join(', ')}; run npm run generate -w @paygate/client`);
  process.exit(1);
}
if (check) console.log('generated files are up to date');
