import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { catalogueScript } from '../checkout/i18n/catalogueScript.ts';
import { CHECKOUT_LOCALES, type CheckoutLocale } from '../checkout/i18n/locales.ts';
import { CATALOGUES } from '../checkout/i18n/translator.ts';
import { hashedAsset, ICON_FILE, type WebAsset } from './hashedAsset.ts';

export interface CheckoutAssets {
  script: WebAsset;
  style: WebAsset;
  icon: WebAsset;
  /** Each language's messages for the script (`catalogueScript`). */
  catalogues: Record<CheckoutLocale, WebAsset>;
  byName: Map<string, WebAsset>;
}

const JAVASCRIPT = 'text/javascript; charset=utf-8';

async function bundleCheckoutScript(): Promise<Buffer> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('../checkout/checkout.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    // The wallet SDK and the checkout runtime from their sources, built or not.
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

/**
 * The hosted checkout's script (bundled with the wallet SDK's browser build and the checkout runtime), its messages
 * in each language, stylesheet and icon, under content-hashed names and compressed once.
 */
export async function buildCheckoutAssets(): Promise<CheckoutAssets> {
  const [script, style, icon] = await Promise.all([
    bundleCheckoutScript().then((body) => hashedAsset('checkout', 'js', JAVASCRIPT, body, true)),
    readFile(new URL('../checkout/checkout.css', import.meta.url)).then((body) =>
      hashedAsset('checkout', 'css', 'text/css; charset=utf-8', body, true),
    ),
    readFile(ICON_FILE).then((body) => hashedAsset('favicon', 'svg', 'image/svg+xml', body, false)),
  ]);
  const catalogues = Object.fromEntries(
    CHECKOUT_LOCALES.map((locale) => [
      locale,
      hashedAsset(`messages-${locale}`, 'js', JAVASCRIPT, Buffer.from(catalogueScript(CATALOGUES[locale])), true),
    ]),
  ) as Record<CheckoutLocale, WebAsset>;
  const all = [script, style, icon, ...Object.values(catalogues)];
  return { script, style, icon, catalogues, byName: new Map(all.map((asset) => [asset.name, asset])) };
}
