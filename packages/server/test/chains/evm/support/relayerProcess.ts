/**
 * A second, separate relayer process for the relayer tests, run with `node --import tsx`. It prints one JSON line
 * per step on stdout. The steps are the relayer's own public steps; the test decides where the process dies by
 * killing it after the step it waits for.
 *
 *   submit <count> <to>        waits for "go" on stdin, submits <count> transactions at once, prints their ids, exits
 *   record <to>                records one transaction (signed, stored, not sent), prints it, then idles until killed
 *   record-broadcast <to>      records and sends one transaction, prints it, then idles until killed
 *
 * Environment: DATABASE_URL, RELAYER_NETWORKS (JSON NetworkInfo[]), RELAYER_KEY (the test collector's key).
 */
import { createInterface } from 'node:readline';
import type { Address, Hex } from 'viem';
import { Relayer } from '../../../../src/chains/evm/relayer.ts';
import type { NetworkInfo } from '../../../../src/chains/registry.ts';
import { connect } from '../../../../src/db/database.ts';

const [mode, ...args] = process.argv.slice(2);
const networks = JSON.parse(process.env.RELAYER_NETWORKS ?? '[]') as NetworkInfo[];
const chain = (networks[0] as NetworkInfo).caip2;
const db = connect(process.env.DATABASE_URL as string, 8);
const relayer = new Relayer({ db, networks, privateKey: process.env.RELAYER_KEY as Hex });

function print(line: object): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

const idle = () => new Promise(() => setInterval(() => {}, 60_000));

if (mode === 'submit') {
  const [count, to] = args as [string, Address];
  print({ ready: true });
  const stdin = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => stdin.once('line', () => resolve()));
  stdin.close();
  const submitted = await Promise.all(
    Array.from({ length: Number(count) }, () => relayer.submit({ chain, to, value: 1n, purpose: 'test_concurrency' })),
  );
  print({ ids: submitted.map((transaction) => transaction.id) });
  await db.destroy();
} else if (mode === 'record' || mode === 'record-broadcast') {
  const recorded = await relayer.record({ chain, to: args[0] as Address, value: 1n, purpose: 'test_crash' });
  if (mode === 'record-broadcast') await relayer.broadcast(recorded.id);
  print({ id: recorded.id, hash: recorded.hash, nonce: recorded.nonce.toString() });
  await idle();
} else {
  throw new Error(`unknown mode ${mode}`);
}
