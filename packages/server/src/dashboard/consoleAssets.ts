import { fileURLToPath } from 'node:url';
import { buildConsoleAssets, type ConsoleAssets } from '@paygate/web/consoleAssets';

let built: Promise<ConsoleAssets> | undefined;

/**
 * The consoles' scripts, stylesheet and icon, built once per process on first use: bundling costs a moment that
 * processes which never serve a console should not pay. Their icon is the service's one, the checkout's.
 */
export function consoleAssets(): Promise<ConsoleAssets> {
  built ??= buildConsoleAssets({
    iconFile: fileURLToPath(new URL('../checkout/client/favicon.svg', import.meta.url)),
  }).catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
