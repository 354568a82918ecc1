import type { Command } from 'commander';

interface ListenCommandOptions {
  forwardTo: string;
  apiKey?: string;
  events?: string;
  merchant?: string;
  secret?: string;
  baseUrl?: string;
}

/**
 * The service's address as the service itself takes it (BASE_URL, else localhost at PORT), so the command finds a
 * service started in the same shell without options.
 */
function serviceUrl(given: string | undefined): string {
  return given ?? process.env.BASE_URL ?? `http://localhost:${process.env.PORT || 8080}`;
}

/** `paygate webhooks listen`: a partner's events forwarded, signed, to a local URL, like `stripe listen`. */
export function addWebhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description("a partner's webhook events, for development");
  webhooks
    .command('listen')
    .description(
      "forward the partner's events, as they happen, to a local URL, signed with a secret printed at start; prints each with the receiver's answer",
    )
    .requiredOption('--forward-to <url>', 'where each event is POSTed, e.g. http://localhost:3000/hooks')
    .option('--api-key <key>', "the partner's API key (default: PAYGATE_API_KEY)")
    .option('--events <types>', 'comma-separated event types, e.g. payment.succeeded,payment.failed (default: all)')
    .option('--merchant <merchantId>', "only this merchant's events")
    .option('--secret <whsec>', 'the signing secret to use (default: a new one, printed at start)')
    .option('--base-url <url>', 'the service (default: BASE_URL, else http://localhost:$PORT, PORT defaulting to 8080)')
    .action(async (options: ListenCommandOptions) => {
      const { listenForEvents, ListenError } = await import('./listenForEvents.ts');
      const apiKey = options.apiKey ?? process.env.PAYGATE_API_KEY;
      if (!apiKey) throw new ListenError('give the partner API key with --api-key or PAYGATE_API_KEY');
      const stop = new AbortController();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
      await listenForEvents({
        baseUrl: serviceUrl(options.baseUrl),
        apiKey,
        forwardTo: options.forwardTo,
        ...(options.events ? { events: options.events } : {}),
        ...(options.merchant ? { merchantId: options.merchant } : {}),
        ...(options.secret ? { secret: options.secret } : {}),
        print: (line) => process.stdout.write(`${line}\n`),
        notice: (line) => process.stderr.write(`${line}\n`),
        signal: stop.signal,
      });
    });
}
