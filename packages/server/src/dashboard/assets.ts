import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export interface DashboardAsset {
  /** Content-hashed file name, e.g. `dashboard.3f2a9c1b0d4e5f67.js`; a new build gets a new name. */
  name: string;
  contentType: string;
  body: Buffer;
  /** The body compressed once at build, for browsers that accept it; the icon is sent as it is. */
  compressed: { br: Buffer; gzip: Buffer } | undefined;
}

export interface DashboardAssets {
  script: DashboardAsset;
  /** The operator console's script: its own entry, so the partner dashboard carries none of it. */
  operatorScript: DashboardAsset;
  /** One stylesheet for both consoles, uPlot's included. */
  style: DashboardAsset;
  icon: DashboardAsset;
  byName: Map<string, DashboardAsset>;
}

function hashed(stem: string, extension: string, contentType: string, body: Buffer, compress: boolean): DashboardAsset {
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 16);
  const compressed = compress
    ? {
        br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
        gzip: gzipSync(body, { level: 9 }),
      }
    : undefined;
  return { name: `${stem}.${digest}.${extension}`, contentType, body, compressed };
}

const ENTRIES = {
  dashboard: fileURLToPath(new URL('./client/dashboard.tsx', import.meta.url)),
  operator: fileURLToPath(new URL('../operator/client/operator.tsx', import.meta.url)),
};

/** The consoles' scripts, each entry bundled whole (uPlot with the dashboard: its first page shows the chart). */
async function bundleClientScripts(): Promise<Record<keyof typeof ENTRIES, Buffer>> {
  const result = await build({
    entryPoints: ENTRIES,
    bundle: true,
    write: false,
    // Nothing is written; esbuild names the outputs under this directory.
    outdir: '/bundles',
    format: 'iife',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const output = (name: string) => {
    const file = result.outputFiles.find((each) => each.path === `/bundles/${name}.js`);
    if (!file) throw new Error(`esbuild produced no ${name} script`);
    return Buffer.from(file.contents);
  };
  return { dashboard: output('dashboard'), operator: output('operator') };
}

async function buildAssets(): Promise<DashboardAssets> {
  const fileOf = (path: string) => readFile(fileURLToPath(new URL(path, import.meta.url)));
  const javascript = 'text/javascript; charset=utf-8';
  const [scripts, chartStyle, ownStyle, iconFile] = await Promise.all([
    bundleClientScripts(),
    readFile(createRequire(import.meta.url).resolve('uplot/dist/uPlot.min.css')),
    fileOf('./client/dashboard.css'),
    // The service's one icon, the checkout's.
    fileOf('../checkout/client/favicon.svg'),
  ]);
  const script = hashed('dashboard', 'js', javascript, scripts.dashboard, true);
  const operatorScript = hashed('operator', 'js', javascript, scripts.operator, true);
  // uPlot's rules first, so the dashboard's own can adjust them.
  const style = hashed('dashboard', 'css', 'text/css; charset=utf-8', Buffer.concat([chartStyle, ownStyle]), true);
  const icon = hashed('favicon', 'svg', 'image/svg+xml', iconFile, false);
  const all = [script, operatorScript, style, icon];
  return { script, operatorScript, style, icon, byName: new Map(all.map((asset) => [asset.name, asset])) };
}

let built: Promise<DashboardAssets> | undefined;

/**
 * The consoles' scripts (their Preact clients bundled), stylesheet and icon, built once per process on first use:
 * bundling costs a moment that processes which never serve the dashboard should not pay.
 */
export function dashboardAssets(): Promise<DashboardAssets> {
  built ??= buildAssets().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
