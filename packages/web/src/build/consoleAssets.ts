import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export interface ConsoleAsset {
  /** Content-hashed file name, e.g. `dashboard.3f2a9c1b0d4e5f67.js`; a new build gets a new name. */
  name: string;
  contentType: string;
  body: Buffer;
  /** The body compressed once at build, for browsers that accept it; the icon is sent as it is. */
  compressed: { br: Buffer; gzip: Buffer } | undefined;
}

export interface ConsoleAssets {
  dashboardScript: ConsoleAsset;
  /** The operator console's script: its own entry, so the partner dashboard carries none of it. */
  operatorScript: ConsoleAsset;
  /** One stylesheet for both consoles, uPlot's included. */
  style: ConsoleAsset;
  icon: ConsoleAsset;
  byName: Map<string, ConsoleAsset>;
}

function hashed(stem: string, extension: string, contentType: string, body: Buffer, compress: boolean): ConsoleAsset {
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
  dashboard: fileURLToPath(new URL('../dashboard/dashboard.tsx', import.meta.url)),
  operator: fileURLToPath(new URL('../operator/operator.tsx', import.meta.url)),
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

/**
 * The consoles' scripts (their Preact clients bundled), stylesheet and icon, under content-hashed names and
 * compressed once. The icon is the service's, which the caller names: it is the hosted checkout's too.
 */
export async function buildConsoleAssets(options: { iconFile: string }): Promise<ConsoleAssets> {
  const javascript = 'text/javascript; charset=utf-8';
  const [scripts, chartStyle, ownStyle, iconFile] = await Promise.all([
    bundleClientScripts(),
    readFile(createRequire(import.meta.url).resolve('uplot/dist/uPlot.min.css')),
    readFile(fileURLToPath(new URL('../ui/dashboard.css', import.meta.url))),
    readFile(options.iconFile),
  ]);
  const dashboardScript = hashed('dashboard', 'js', javascript, scripts.dashboard, true);
  const operatorScript = hashed('operator', 'js', javascript, scripts.operator, true);
  // uPlot's rules first, so the consoles' own can adjust them.
  const style = hashed('dashboard', 'css', 'text/css; charset=utf-8', Buffer.concat([chartStyle, ownStyle]), true);
  const icon = hashed('favicon', 'svg', 'image/svg+xml', iconFile, false);
  const all = [dashboardScript, operatorScript, style, icon];
  return { dashboardScript, operatorScript, style, icon, byName: new Map(all.map((asset) => [asset.name, asset])) };
}
