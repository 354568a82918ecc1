#!/usr/bin/env node
// The wallet CLI runs its TypeScript sources directly; tsx compiles them on load.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli.ts');
await runCli(process.argv);
