import { Command } from 'commander';
import { addCollectorCommands } from './collectorKeystoreCommand.ts';
import type { StartOptions } from '../startService.ts';
import {
  addAuditCommand,
  addDepositCommands,
  addInflowCommands,
  addKeyAndAppCommands,
  addMerchantCommands,
  addMigrateCommand,
  addPartnerCommands,
  addScreeningCommands,
} from './operatorCommands.ts';
import { UserFacingError } from '../userFacingError.ts';
import { SERVICE_VERSION } from '../version.ts';
import { addWebhookCommands } from '../webhooks/listenCommand.ts';

/**
 * The command line loads only commander and the command definitions: each command imports what it runs when it runs,
 * so `--help` and a database command do not load the HTTP app, the chains and the workers.
 */
export type { StartOptions } from '../startService.ts';

/** Runs the service until a shutdown signal; a port already taken is said at once, before anything starts. */
export async function start(options: StartOptions = {}): Promise<void> {
  const [{ loadConfig }, { ensureListenAddressFree }] = await Promise.all([
    import('../config.ts'),
    import('../http/listenAddress.ts'),
  ]);
  const { port, host } = loadConfig();
  await ensureListenAddressFree(port, host);
  const service = await import('../startService.ts');
  await service.start(options);
}

function buildCli(): Command {
  const program = new Command('paygate')
    .description('paygate payment service and operator commands')
    .version(SERVICE_VERSION, '-v, --version', 'print the version');
  program
    .command('start')
    .description('run the service (HTTP API and background workers)')
    .action(() => start());
  addMigrateCommand(program);

  program
    .command('devnet')
    .description('run the local devnet chains on their own and print their manifest')
    .allowUnknownOption()
    .action(async () => {
      const [{ runDevnetCli }, { loadConfig }] = await Promise.all([import('@paygate/devnet'), import('../config.ts')]);
      await runDevnetCli(['--data-dir', `${loadConfig().dataDir}/devnet`, ...process.argv.slice(3)]);
    });

  addPartnerCommands(program);
  addKeyAndAppCommands(program);
  addMerchantCommands(program);
  addDepositCommands(program);
  addInflowCommands(program);
  addAuditCommand(program);
  addScreeningCommands(program);
  addCollectorCommands(program);
  addWebhookCommands(program);
  return program;
}

/** Runs the operator command line (`paygate <command>`). */
export function runCli(argv: string[]): Promise<void> {
  return buildCli()
    .parseAsync(argv)
    .then(
      () => undefined,
      (error: unknown) => {
        const known = error instanceof UserFacingError;
        // Exit once the message is written: a piped stderr is asynchronous and an early exit would cut it.
        process.stderr.write(
          `paygate: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`,
          () => process.exit(1),
        );
      },
    );
}
