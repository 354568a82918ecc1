import { startWorkers } from '../../../src/jobs/queue.ts';

/** A service process stand-in whose one task never finishes, so its job stays locked until the process dies. */
const [databaseUrl, task] = process.argv.slice(2) as [string, string];
await startWorkers(
  databaseUrl,
  {
    [task]: async () => {
      process.stdout.write('job started\n');
      await new Promise(() => {});
    },
  },
  { concurrency: 1 },
);
process.stdout.write('workers ready\n');
