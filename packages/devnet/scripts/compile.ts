// Regenerates packages/devnet/artifacts/*.json. Permit2 takes about half a minute with via-IR and
// 1,000,000 optimizer runs, which is why the artifacts are committed instead of built on each start.
// Contract names as arguments compile only those: `npm run compile-contracts -w @paygate/devnet -- PlainToken`.
import { compileContracts } from '../src/evm/compile.ts';

compileContracts(console.log, process.argv.slice(2));
