import { parseArgs } from 'node:util';
import { startDevnet } from './devnet.ts';

const USAGE = `usage: paygate devnet [--data-dir DIR] [--host HOST] [--evm-ports PORT,PORT] [--solana-port PORT]

Starts the local chains, prints their manifest (RPC URLs, tokens, funded accounts) as JSON on
stdout and runs until interrupted. State is kept in the data dir (default: ./.paygate/devnet).`;

/** `paygate devnet`: runs the devnet in the foreground; logs go to stderr so stdout stays pure JSON. */
export async function runDevnetCli(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      host: { type: 'string' },
      'evm-ports': { type: 'string' },
      'solana-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const devnet = await startDevnet({
    dataDir: values['data-dir'] ?? '.paygate/devnet',
    host: values.host,
    ports: {
      evm: values['evm-ports']?.split(',').map(Number),
      solana: values['solana-port'] ? Number(values['solana-port']) : undefined,
    },
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(devnet.manifest, null, 2)}\n`);
  await new Promise<void>((resolve) => {
    const shutdown = (signal: NodeJS.Signals) => {
      process.stderr.write(`${signal}: stopping the devnet\n`);
      process.off('SIGINT', shutdown);
      process.off('SIGTERM', shutdown);
      devnet.stop().then(resolve, (error: unknown) => {
        process.stderr.write(`stopping failed: ${(error as Error).message}\n`);
        process.exitCode = 1;
        resolve();
      });
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  });
}
