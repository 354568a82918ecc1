// The restart tests' entry point: the service as `paygate start` runs it, set to kill itself at the transfer crash
// point named by its first argument, in its settlements or, when the second argument is `refund`, in its refunds
// (the service's own command line has no way to set one).
import { register } from 'tsx/esm/api';

register();
const { start } = await import('../../src/cli/main.ts');
const [point, payout] = process.argv.slice(2);
await start(payout === 'refund' ? { refundCrashAt: point } : { settlementCrashAt: point });
