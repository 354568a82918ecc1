import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger, logDomainEvent } from '../src/log.ts';
import { createMerchant, createPayment } from './support/fixtures.ts';
import { childEnv, NO_CHAIN_ENV, PAYGATE_BIN, runCli, startServerProcess } from './support/serverProcess.ts';

/** A pretty line: its time, its level, then words; never a JSON brace. */
const PRETTY_LINE = /^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|ERROR): [^{}]+$/;

function prettyLogger(): { lines: string[] } {
  const written: string[] = [];
  createLogger('info', { format: 'pretty', destination: { write: (line: string) => written.push(line) } });
  return { lines: written };
}

describe('pretty log lines', () => {
  it('writes a domain event as one short line: time, level, component, name, its ids and amounts', () => {
    const { lines } = prettyLogger();
    logDomainEvent('payment.succeeded', {
      paymentId: 'pay_pretty',
      merchantId: 'mrch_owner',
      partnerId: 'prt_owner',
      amount: '1000',
      currency: 'USD',
      network: 'eip155:31337',
      token: 'USDC',
      tokenAmount: '10000000',
      txHash: `0x${'ab'.repeat(32)}`,
      failureCode: null,
    });
    expect(lines).toHaveLength(1);
    const line = lines[0] as string;
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd()).not.toContain('\n');
    expect(line.trimEnd()).toMatch(PRETTY_LINE);
    expect(line).toContain(
      'INFO: [events] payment.succeeded paymentId=pay_pretty amount=1000 currency=USD network=eip155:31337 token=USDC ' +
        `tokenAmount=10000000 txHash=0x${'ab'.repeat(32)}\n`,
    );
    // The owner's ids and absent fields stay in the JSON form only.
    expect(line).not.toContain('mrch_owner');
    expect(line).not.toContain('failureCode');
  });

  it('shows a request by method and URL with its credentials redacted, and quotes a value with spaces', () => {
    const { lines } = prettyLogger();
    const logger = createLogger('info', {
      format: 'pretty',
      destination: { write: (line: string) => lines.push(line) },
    });
    logger.info(
      {
        req: {
          method: 'GET',
          url: '/collect/form-token-secret?x=1',
          headers: { 'api-key': 'sk_header_secret', authorization: 'Bearer bearer-secret' },
        },
        note: 'two words',
      },
      'incoming request',
    );
    logger.info({ req: { method: 'GET', url: '/dashboard/link/link-secret' } }, 'incoming request');
    const text = lines.join('');
    expect(text).toContain('INFO: incoming request GET /collect/[redacted]?x=1 note="two words"\n');
    expect(text).toContain('INFO: incoming request GET /dashboard/link/[redacted]\n');
    for (const secret of ['form-token-secret', 'sk_header_secret', 'bearer-secret', 'link-secret']) {
      expect(text).not.toContain(secret);
    }
  });

  it('keeps the lines of a message of several lines, indented under its entry', () => {
    const { lines } = prettyLogger();
    const logger = createLogger('info', {
      format: 'pretty',
      destination: { write: (line: string) => lines.push(line) },
    });
    logger
      .child({ component: 'followers' })
      .warn('following eip155:8453 failed: HTTP request failed.\nURL: http://node/');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /WARN: \[followers\] following eip155:8453 failed: HTTP request failed\.\n {4}URL: http:\/\/node\/\n$/,
    );
  });

  it('gives an error its message on the line, and at level error its stack below', () => {
    const { lines } = prettyLogger();
    const logger = createLogger('info', {
      format: 'pretty',
      destination: { write: (line: string) => lines.push(line) },
    });
    logger.warn({ err: new Error('price source down'), paymentId: 'pay_1' }, 'pricing failed');
    logger.error({ err: new Error('boom') }, 'unexpected error');
    expect(lines[0]).toMatch(/WARN: pricing failed paymentId=pay_1 err="price source down"\n$/);
    const [first, ...stack] = (lines[1] as string).trimEnd().split('\n');
    expect(first).toMatch(/ERROR: unexpected error$/);
    expect(stack[0]).toBe('    Error: boom');
    expect(stack[1]).toMatch(/^ {8}at .*logFormat\.test\.ts/);
  });
});

describe('LOG_FORMAT', () => {
  it('is pretty on a terminal and json otherwise, unless set', () => {
    expect(loadConfig({}, false).logFormat).toBe('json');
    expect(loadConfig({}, true).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }, false).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'text' }, true)).toThrow(ConfigError);
  });
});

/** `paygate start` with a pseudo-terminal as its stdout and stderr (util-linux `script`), as a person runs it. */
function startOnTerminal(env: Record<string, string>): {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  exited: Promise<number | null>;
} {
  // `exec`: the service takes the shell's place, so Ctrl-C reaches only it (dash, a CI's usual /bin/sh, dies of the
  // SIGINT the service handles, and `script --return` would report 130).
  const command = `exec '${process.execPath}' '${PAYGATE_BIN}' start`;
  const child = spawn('script', ['--quiet', '--return', '--flush', '--command', command, '/dev/null'], {
    env: childEnv({ PORT: '0', RATE_LIMIT_MAX: '100000', ...NO_CHAIN_ENV, ...env }),
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => stripVTControlCharacters(output).replaceAll('\r\n', '\n'), exited };
}

async function waitFor(output: () => string, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(output());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in output:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the log of a running service', () => {
  const env = () => ({
    DATABASE_URL: inject('databaseUrl'),
    DEMO_PARTNER: 'never',
    LOG_LEVEL: 'info',
    LOG_REQUESTS: 'true',
  });
  const stops: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  async function partnerKey(): Promise<string> {
    const created = await runCli(['partner', 'create', '--name', 'Log format partner'], {
      DATABASE_URL: inject('databaseUrl'),
    });
    expect(created.code, created.stderr).toBe(0);
    return JSON.parse(created.stdout).apiKey;
  }

  it('is JSON lines when stdout is a pipe', async () => {
    const server = await startServerProcess(env());
    stops.push(() => server.stop());
    await fetch(`${server.url}/collect/piped-form-token`);
    await server.waitForOutput(/request completed/);
    const logLines = server
      .stdout()
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('paygate listening at'));
    expect(logLines.length).toBeGreaterThanOrEqual(2);
    for (const line of logLines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(server.stdout()).toContain('"url":"/collect/[redacted]"');
  });

  it('is one pretty line per entry on a terminal, credentials redacted, and stops on Ctrl-C', async () => {
    const apiKey = await partnerKey();
    const service = startOnTerminal(env());
    stops.push(async () => {
      if (service.child.exitCode === null) service.child.kill('SIGTERM');
      await service.exited;
    });
    const url = (await waitFor(service.output, /paygate listening at (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
    const server = { url };
    const merchant = await createMerchant(server, apiKey, {
      merchantName: 'Pretty Shop',
      merchantEmail: 'owner@pretty-shop.example',
    });
    const payment = await createPayment(server, apiKey, merchant.id, {
      amount: { unit: 'iso4217/USD', value: '1250' },
    });
    await fetch(`${url}/collect/terminal-form-token`);
    await waitFor(service.output, /GET \/collect\/\[redacted\]/);
    await waitFor(service.output, new RegExp(`payment\\.created paymentId=${payment.paymentId}`));

    const output = service.output();
    const logLines = output.split('\n').filter((line) => /^\[\d\d:\d\d:\d\d/.test(line));
    expect(logLines.length).toBeGreaterThanOrEqual(6);
    for (const line of logLines) expect(line).toMatch(PRETTY_LINE);
    expect(output).toMatch(
      new RegExp(`INFO: \\[events\\] payment\\.created paymentId=${payment.paymentId} amount=1250 currency=USD\\n`),
    );
    expect(output).toMatch(/INFO: incoming request POST \/v1\/merchants reqId=\S+\n/);
    expect(output).toMatch(/INFO: request completed 201 \d+\.\d ms reqId=\S+\n/);
    expect(output).not.toContain(apiKey);
    expect(output).not.toContain('terminal-form-token');

    service.child.stdin.write('\x03');
    expect(await service.exited, service.output()).toBe(0);
    expect(service.output()).toMatch(/INFO: stopped\n/);
  });
});
