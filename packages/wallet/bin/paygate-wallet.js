#!/usr/bin/env node
// Runs the built CLI: dist/ is made by `npm run build`, which runs on install in the repository and before packing.
const { runCli } = await import('../dist/cli.js');
await runCli(process.argv);
