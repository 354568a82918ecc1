import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { PageAssets } from './checkoutPage.ts';
import { catalogueScript } from './i18n/catalogueScript.ts';
import { CHECKOUT_LOCALES, type CheckoutLocale } from './i18n/locales.ts';
import { CATALOGUES } from './i18n/translator.ts';

export interface CheckoutAsset {
  /** Content-hashed file name, e.g. `checkout.3f2a9c1b0d4e5f67.js`; a new build gets a new name. */
  name: string;
  contentType: string;
  body: Buffer;
}

export interface CheckoutAssets {
  script: CheckoutAsset;
  style: CheckoutAsset;
  icon: CheckoutAsset;
  /** Each language's messages for the script (`catalogueScript`). */
  catalogues: Record<CheckoutLocale, CheckoutAsset>;
  byName: Map<string, CheckoutAsset>;
}

function hashed(stem: string, extension: string, contentType: string, body: Buffer): CheckoutAsset {
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { name: `${stem}.${digest}.${extension}`, contentType, body };
}

async function bundleClientScript(): Promise<Buffer> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./client/checkout.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    // The wallet SDK from its sources, built or not.
    conditions: ['@paygate/source'],
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild produced no checkout script');
  return Buffer.from(output.contents);
}

async function buildAssets(): Promise<CheckoutAssets> {
  const clientFile = (name: string) => readFile(fileURLToPath(new URL(`./client/${name}`, import.meta.url)));
  const [script, style, icon] = await Promise.all([
    bundleClientScript().then((body) => hashed('checkout', 'js', 'text/javascript; charset=utf-8', body)),
    clientFile('checkout.css').then((body) => hashed('checkout', 'css', 'text/css; charset=utf-8', body)),
    clientFile('favicon.svg').then((body) => hashed('favicon', 'svg', 'image/svg+xml', body)),
  ]);
  const catalogues = Object.fromEntries(
    CHECKOUT_LOCALES.map((locale) => [
      locale,
      hashed(
        `messages-${locale}`,
        'js',
        'text/javascript; charset=utf-8',
        Buffer.from(catalogueScript(CATALOGUES[locale])),
      ),
    ]),
  ) as Record<CheckoutLocale, CheckoutAsset>;
  const all = [script, style, icon, ...Object.values(catalogues)];
  return { script, style, icon, catalogues, byName: new Map(all.map((asset) => [asset.name, asset])) };
}

let built: Promise<CheckoutAssets> | undefined;

/**
 * The page's script (bundled with the wallet SDK's browser build), its messages in each language, stylesheet and
 * icon, built once per process on first use: bundling costs a moment that processes which never serve a page
 * should not pay.
 */
export function checkoutAssets(): Promise<CheckoutAssets> {
  built ??= buildAssets().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

function assetUrl(prefix: string, asset: CheckoutAsset): string {
  return `${prefix}/assets/checkout/${asset.name}`;
}

/** Where a page under the checkout's path `prefix` finds the script, stylesheet and icon. */
export async function checkoutAssetUrls(prefix: string): Promise<PageAssets> {
  const built = await checkoutAssets();
  return {
    scriptUrl: assetUrl(prefix, built.script),
    styleUrl: assetUrl(prefix, built.style),
    iconUrl: assetUrl(prefix, built.icon),
  };
}

/** Where a page under the checkout's path `prefix` finds its script's messages in `locale`. */
export async function checkoutCatalogueUrl(prefix: string, locale: CheckoutLocale): Promise<string> {
  return assetUrl(prefix, (await checkoutAssets()).catalogues[locale]);
}
