import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { hashedAsset, ICON_FILE, type WebAsset } from './hashedAsset.ts';

export interface PointOfSaleAssets {
  script: WebAsset;
  style: WebAsset;
  icon: WebAsset;
  byName: Map<string, WebAsset>;
}

const ENTRY = fileURLToPath(new URL('../pointOfSale/pointOfSale.tsx', import.meta.url));

async function bundleScript(): Promise<Buffer> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    conditions: ['@paygate/source'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error('esbuild produced no point-of-sale script');
  return Buffer.from(file.contents);
}

/** The point of sale's script (Preact and the QR encoder), stylesheet and icon, under content-hashed names. */
export async function buildPointOfSaleAssets(): Promise<PointOfSaleAssets> {
  const [script, style, icon] = await Promise.all([
    bundleScript(),
    readFile(fileURLToPath(new URL('../pointOfSale/pointOfSale.css', import.meta.url))),
    readFile(ICON_FILE),
  ]);
  const assets = {
    script: hashedAsset('pos', 'js', 'text/javascript; charset=utf-8', script, true),
    style: hashedAsset('pos', 'css', 'text/css; charset=utf-8', style, true),
    icon: hashedAsset('pos-icon', 'svg', 'image/svg+xml', icon, false),
  };
  return { ...assets, byName: new Map(Object.values(assets).map((asset) => [asset.name, asset])) };
}
