import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const PAGE_DIR = new URL('../page/', import.meta.url);

export interface StoreAssets {
  /** The checkout page's script: `@paygate/checkout` and the store's page code, one ES module. */
  checkoutScript: string;
  stylesheet: string;
  favicon: string;
}

/** Bundles the page's script once, when the store starts: the store needs no build step of its own. */
export async function buildStoreAssets(): Promise<StoreAssets> {
  const [bundled, stylesheet, favicon] = await Promise.all([
    build({
      entryPoints: [fileURLToPath(new URL('checkout.ts', PAGE_DIR))],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    }),
    readFile(new URL('store.css', PAGE_DIR), 'utf8'),
    readFile(new URL('favicon.svg', PAGE_DIR), 'utf8'),
  ]);
  return { checkoutScript: bundled.outputFiles[0]!.text, stylesheet, favicon };
}
