#!/usr/bin/env -S npx tsx
import { runDevnetCli } from '../src/cli.ts';

await runDevnetCli();
