#!/usr/bin/env node
// The service runs its TypeScript sources directly; tsx compiles them on load.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/main.ts');
await runCli(process.argv);
