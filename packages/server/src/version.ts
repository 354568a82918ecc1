import { readFileSync } from 'node:fs';

/** The service's version, as its package names it (`paygate --version`, the landing page). */
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
