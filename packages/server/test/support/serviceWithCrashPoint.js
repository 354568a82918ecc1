// The restart tests' entry point: the service as `paygate start` runs it, set to kill itself at the settlement crash
// point named by its first argument (the service's own command line has no way to set one).
import { register } from 'tsx/esm/api';

register();
const { start } = await import('../../src/main.ts');
await start({ settlementCrashAt: process.argv[2] });
