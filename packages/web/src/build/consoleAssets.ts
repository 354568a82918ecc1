import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { hashedAsset, ICON_FILE, type WebAsset } from './hashedAsset.ts';

export type ConsoleAsset = WebAsset;

export interface ConsoleAssets {
  dashboardScript: ConsoleAsset;
  /** The operator console's script: its own entry, so the partner dashboard carries none of it. */
  operatorScript: ConsoleAsset;
  /** One stylesheet for both consoles, uPlot's included. */
  style: ConsoleAsset;
  icon: ConsoleAsset;
  byName: Map<string, ConsoleAsset>;
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
    // The client's money rules from their source, built or not.
    conditions: ['@paygate/source'],
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
 * compressed once.
 */
export async function buildConsoleAssets(): Promise<ConsoleAssets> {
  const javascript = 'text/javascript; charset=utf-8';
  const [scripts, chartStyle, ownStyle, iconFile] = await Promise.all([
    bundleClientScripts(),
    readFile(createRequire(import.meta.url).resolve('uplot/dist/uPlot.min.css')),
    readFile(fileURLToPath(new URL('../ui/dashboard.css', import.meta.url))),
    readFile(ICON_FILE),
  ]);
  const dashboardScript = hashedAsset('dashboard', 'js', javascript, scripts.dashboard, true);
  const operatorScript = hashedAsset('operator', 'js', javascript, scripts.operator, true);
  // uPlot's rules first, so the consoles' own can adjust them.
  const style = hashedAsset('dashboard', 'css', 'text/css; charset=utf-8', Buffer.concat([chartStyle, ownStyle]), true);
  const icon = hashedAsset('favicon', 'svg', 'image/svg+xml', iconFile, false);
  const all = [dashboardScript, operatorScript, style, icon];
  return { dashboardScript, operatorScript, style, icon, byName: new Map(all.map((asset) => [asset.name, asset])) };
}
