#!/usr/bin/env node
import { compiledEntry } from './compiledSources.js';

// Stack traces name the TypeScript sources, through the compiled chunks' source maps.
process.setSourceMapsEnabled(true);
const entry = await compiledEntry();
let runCli;
if (entry) {
  ({ runCli } = await import(entry));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runCli } = await import('../src/cli/main.ts'));
}
await runCli(process.argv);
