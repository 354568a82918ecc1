import { buildConsoleAssets, type ConsoleAssets } from '@paygate/web/consoleAssets';

let built: Promise<ConsoleAssets> | undefined;

/**
 * The consoles' scripts, stylesheet and icon, built once per process on first use: bundling costs a moment that
 * processes which never serve a console should not pay.
 */
export function consoleAssets(): Promise<ConsoleAssets> {
  built ??= buildConsoleAssets().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
