import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call } from './support/testServer.ts';
import { spawn } from 'node:child_process';
import { childEnv, PAYGATE_BIN, runCli, startServerProcess, type ServerProcess } from './support/serverProcess.ts';

describe('operator CLI against DATABASE_URL', () => {
  const env = () => ({ DATABASE_URL: inject('databaseUrl') });
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess({ ...env(), DEMO_PARTNER: 'never', AUTH_CACHE_TTL_MS: '0' });
  });
  afterAll(() => server.stop());

  it('creates a partner, keys and apps, printing only JSON, and the key works at once', async () => {
    const created = await runCli(['partner', 'create', '--name', 'CLI partner'], env());
    expect(created.code, created.stderr).toBe(0);
    const partner = JSON.parse(created.stdout);
    expect(Object.keys(partner).sort()).toEqual(['apiKey', 'appId', 'partnerId']);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    expect((await call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey } })).status).toBe(200);

    const key = await runCli(['key', 'create', '--partner', partner.partnerId, '--scopes', 'payments'], env());
    const { keyId, apiKey } = JSON.parse(key.stdout);
    const forbidden = await call(server, '/v1/merchants', { headers: { 'api-key': apiKey } });
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'forbidden']);
    expect((await runCli(['key', 'revoke', keyId], env())).code).toBe(0);
    const revoked = await call(server, '/v1/merchants', { headers: { 'api-key': apiKey } });
    expect(revoked.body.code).toBe('invalid_api_key');

    const app = await runCli(
      [
        'app',
        'create',
        '--partner',
        partner.partnerId,
        '--name',
        'Pocket Wallet',
        '--icon',
        'https://wallet.example/icon.png',
      ],
      env(),
    );
    expect(JSON.parse(app.stdout).appId).toMatch(/^app_/);

    const pinned = await runCli(['partner', 'pin-version', partner.partnerId, '2026-02-19.preview'], env());
    expect(pinned.code).toBe(0);
    const listed = await call(server, '/v1/merchants', { headers: { 'api-key': partner.apiKey } });
    expect(listed.headers.get('pay-version')).toBe('2026-02-19.preview');
  });

  it('prints one-time links to a partner’s dashboard and to the operator console, each signing in once', async () => {
    const partner = JSON.parse((await runCli(['partner', 'create', '--name', 'Link partner'], env())).stdout);
    const printed = await runCli(['dashboard-link', '--partner', partner.partnerId], {
      ...env(),
      BASE_URL: server.url,
    });
    expect(printed.code, printed.stderr).toBe(0);
    const { url, expiresAt } = JSON.parse(printed.stdout);
    expect(url).toMatch(new RegExp(`^${server.url}/dashboard/link/[A-Za-z0-9_-]{43}$`));
    // Fifteen minutes by default.
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    const follow = () => fetch(url, { redirect: 'manual' });
    const first = await follow();
    expect([first.status, first.headers.get('location')]).toEqual([303, '/dashboard']);
    const cookie = first.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    const session = await call(server, '/dashboard/api/session', { headers: { cookie } });
    expect(session.body.partnerId).toBe(partner.partnerId);
    expect((await follow()).headers.get('location')).toBe('/dashboard/sign-in?link=spent');

    const unknown = await runCli(['dashboard-link', '--partner', 'ptr_unknown'], env());
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('partner ptr_unknown does not exist')]);

    const operator = await runCli(['operator-link'], { ...env(), BASE_URL: server.url });
    expect(operator.code, operator.stderr).toBe(0);
    const operatorUrl = JSON.parse(operator.stdout).url;
    expect(operatorUrl).toMatch(new RegExp(`^${server.url}/operator/link/[A-Za-z0-9_-]{43}$`));
    const console = await fetch(operatorUrl, { redirect: 'manual' });
    expect([console.status, console.headers.get('location')]).toEqual([303, '/operator']);
  });

  it('changes merchant status and records fiat destinations', async () => {
    const partner = JSON.parse((await runCli(['partner', 'create', '--name', 'Status partner'], env())).stdout);
    const merchant = await call(server, '/v1/merchants', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'idempotency-key': 'cli-merchant' },
      body: { merchantName: 'Status Shop', merchantEmail: 'status@shop.com' },
    });
    const merchantId = merchant.body.merchant.id;
    expect((await runCli(['merchant', 'set-status', merchantId, 'suspended'], env())).code).toBe(0);
    const read = await call(server, `/v1/merchants/${merchantId}`, { headers: { 'api-key': partner.apiKey } });
    expect(read.body.merchant.status).toBe('suspended');

    const fiat = await runCli(['fiat-destination', 'add', '--merchant', merchantId, '--bank-type', 'ACH'], env());
    expect(fiat.code, fiat.stderr).toBe(0);
    const settlements = await call(server, `/v1/merchants/${merchantId}/settlements`, {
      headers: { 'api-key': partner.apiKey },
    });
    expect(settlements.body.fiat).toEqual([{ id: JSON.parse(fiat.stdout).id, status: 'active', bankType: 'ACH' }]);
  });

  it.each([
    [['merchant', 'set-status', 'mrch_missing', 'active'], /merchant mrch_missing does not exist/],
    [['merchant', 'set-status', 'mrch_missing', 'closed'], /Allowed choices are active, inactive, suspended/],
    [['key', 'create', '--partner', 'ptr_missing'], /partner ptr_missing does not exist/],
    [['key', 'create', '--partner', 'ptr_missing', '--scopes', 'admin'], /scopes must be/],
    [['key', 'revoke', 'key_missing'], /does not exist or is already revoked/],
    [['partner', 'pin-version', 'ptr_missing', '1999-01-01'], /not a known API version/],
    [['app', 'create', '--partner', 'ptr_missing', '--name', 'x'], /partner ptr_missing does not exist/],
    [
      ['fiat-destination', 'add', '--merchant', 'mrch_missing', '--bank-type', 'ACH'],
      /merchant mrch_missing does not exist/,
    ],
    [['partner', 'create'], /required option '--name <name>' not specified/],
    [['partner', 'create', '--name', '\u3164'], /name must have a visible character/],
    [['app', 'create', '--partner', 'ptr_missing', '--name', '\u0301\u00ad'], /name must have a visible character/],
    [['partner', 'set-fees', 'ptr_any'], /nothing to set: give --percentage and\/or --fixed/],
  ])('fails clearly: paygate %j', async (args, message) => {
    const result = await runCli(args, env());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(result.stdout).toBe('');
  });

  it('lists partners, merchants and keys (never a key itself) and shows a fee schedule', async () => {
    const partner = JSON.parse((await runCli(['partner', 'create', '--name', 'Listed partner'], env())).stdout);
    const merchant = await call(server, '/v1/merchants', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'idempotency-key': 'cli-list' },
      body: { merchantName: 'Listed shop', merchantEmail: 'owner@listed.com' },
    });
    expect(merchant.status, merchant.text).toBe(201);
    await runCli(['partner', 'set-fees', partner.partnerId, '--percentage', '1.25'], env());

    const partners = JSON.parse((await runCli(['partner', 'list'], env())).stdout);
    expect(partners).toContainEqual(expect.objectContaining({ partnerId: partner.partnerId, name: 'Listed partner' }));
    const merchants = JSON.parse((await runCli(['merchant', 'list', '--partner', partner.partnerId], env())).stdout);
    expect(merchants).toEqual([
      expect.objectContaining({
        merchantId: merchant.body.merchant.id,
        partnerId: partner.partnerId,
        name: 'Listed shop',
        status: 'active',
        deleted: false,
      }),
    ]);
    const keys = await runCli(['key', 'list', '--partner', partner.partnerId], env());
    expect(JSON.parse(keys.stdout)).toEqual([
      expect.objectContaining({ scopes: ['merchants', 'payments', 'gateway', 'x402'], revokedAt: null }),
    ]);
    expect(keys.stdout).not.toContain(partner.apiKey);
    expect(partner.apiKey.startsWith(JSON.parse(keys.stdout)[0].prefix)).toBe(true);
    const fees = JSON.parse((await runCli(['fees', 'show', '--partner', partner.partnerId], env())).stdout);
    expect(fees).toEqual({ partnerId: partner.partnerId, percentage: '1.25', fixed: [] });
    const missing = await runCli(['key', 'list', '--partner', 'ptr_missing'], env());
    expect([missing.code, missing.stderr]).toEqual([1, 'paygate: partner ptr_missing does not exist\n']);
  });

  it('keeps a fee schedule when set-fees is given nothing to set', async () => {
    const partner = JSON.parse((await runCli(['partner', 'create', '--name', 'Fees kept'], env())).stdout);
    const set = await runCli(
      ['partner', 'set-fees', partner.partnerId, '--percentage', '2', '--fixed', 'USD:25'],
      env(),
    );
    expect(set.code, set.stderr).toBe(0);
    expect((await runCli(['partner', 'set-fees', partner.partnerId], env())).code).toBe(1);
    const onlyFixed = await runCli(['partner', 'set-fees', partner.partnerId, '--fixed', 'EUR:20'], env());
    expect(JSON.parse(onlyFixed.stdout)).toEqual({
      partnerId: partner.partnerId,
      percentage: '0',
      fixed: [{ currency: 'EUR', amount: '20' }],
    });
  });

  it('says where it looked, and creates nothing, when DATA_DIR holds no database', async () => {
    const empty = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-no-database-'));
    try {
      const result = await runCli(['partner', 'create', '--name', 'Lost'], { DATA_DIR: empty });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`no database in ${path.join(empty, 'postgres')}`);
      expect(result.stdout).toBe('');
      expect(await fs.readdir(empty)).toEqual([]);
    } finally {
      await fs.rm(empty, { recursive: true, force: true });
    }
  });

  it('refuses to start on a port already taken, naming PORT, before it starts a database or chains', async () => {
    const empty = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-port-taken-'));
    const port = new URL(server.url).port;
    try {
      const result = await runCli(['start'], { DATA_DIR: empty, PORT: port });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `paygate: port ${port} on 127.0.0.1 is already in use (another paygate, or another program): stop it, or set PORT to a free port\n`,
      );
      expect(await fs.readdir(empty)).toEqual([]);
    } finally {
      await fs.rm(empty, { recursive: true, force: true });
    }
  });

  it('reports an unreachable database clearly', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/none' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot connect to the database at 127\.0\.0\.1:1/);
    expect(result.stderr).not.toContain('secret');
  });
});

describe('quick start on the embedded PostgreSQL', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-quickstart-'));
  });
  afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('starts with no DATABASE_URL on the devnet, prints a demo key once, lets the CLI join its database, and stops cleanly', async () => {
    // Request lines are logged at info only when asked for.
    const first = await startServerProcess({
      DATA_DIR: dataDir,
      CHAINS: 'devnet',
      LOG_LEVEL: 'info',
      LOG_REQUESTS: 'true',
    });
    const apiKey = (await first.waitForOutput(/apiKey: +(\S+)/))[1];
    expect(apiKey).toMatch(/^sk_/);
    // Where the pages are and how to sign in to them, on the console.
    const dashboard = (await first.waitForOutput(/Partner dashboard: (\S+)/))[1] as string;
    expect(dashboard).toBe(`http://localhost:${new URL(first.url).port}/dashboard`);
    expect(first.output()).toContain('npx paygate dashboard-link --partner <partnerId>');
    expect(first.stdout()).not.toContain('Partner dashboard');
    expect((await call(first, '/v1/merchants', { headers: { 'api-key': apiKey! } })).status).toBe(200);
    // The key is for the person at the console (stderr), never in the JSON log lines on stdout; nor is a form token.
    await fetch(`${first.url}/collect/form-token-that-must-not-be-logged`);
    await first.waitForOutput(/\/collect\/\[redacted\]/);
    expect(first.stdout()).toContain('"url":"/collect/[redacted]"');
    expect(first.stdout()).not.toContain(apiKey);
    expect(first.stdout()).not.toContain('form-token-that-must-not-be-logged');

    const joined = await runCli(['partner', 'create', '--name', 'While running'], { DATA_DIR: dataDir });
    expect(joined.code, joined.stderr).toBe(0);
    const second = JSON.parse(joined.stdout);
    expect((await call(first, '/v1/merchants', { headers: { 'api-key': second.apiKey } })).status).toBe(200);

    const firstExit = await first.stop();
    expect(firstExit, first.output()).toBe(0);
    const lockFile = await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => undefined);
    expect(lockFile).toBeUndefined();

    const restarted = await startServerProcess({ DATA_DIR: dataDir, CHAINS: 'devnet' });
    // Told again on every start: the demo key is not, so the console says how to sign in and make keys.
    await restarted.waitForOutput(/npx paygate key create --partner <partnerId>/);
    expect((await call(restarted, '/v1/merchants', { headers: { 'api-key': apiKey! } })).status).toBe(200);
    const partners = await runCli(['partner', 'create', '--name', 'Third'], { DATA_DIR: dataDir });
    expect(partners.code).toBe(0);
    expect(restarted.output()).not.toContain('apiKey:');
    expect(await restarted.stop()).toBe(0);
  });
});

describe('paygate --help', () => {
  /** The Node built-ins an import of a source file loads: a probe of what the command line pulls in before it runs. */
  function builtinsLoadedBy(source: string): Promise<string[]> {
    const probe = [
      "import { register } from 'tsx/esm/api';",
      'register();',
      'const before = new Set(process.moduleLoadList);',
      `await import(${JSON.stringify(source)});`,
      "const added = process.moduleLoadList.filter((name) => !before.has(name) && name.startsWith('NativeModule '));",
      'process.stdout.write(JSON.stringify(added));',
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: path.dirname(PAYGATE_BIN),
      env: childEnv({}),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    return new Promise((resolve) => child.once('close', () => resolve(JSON.parse(stdout))));
  }

  it('lists the commands without loading the HTTP server or the database layer, which a command loads when it runs', async () => {
    const help = await runCli(['--help'], {});
    expect(help.code, help.stderr).toBe(0);
    for (const command of [
      'start',
      'devnet',
      'migrate',
      'partner',
      'key',
      'app',
      'merchant',
      'fees',
      'fiat-destination',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    const [cli, actions] = await Promise.all([
      builtinsLoadedBy(path.resolve(path.dirname(PAYGATE_BIN), '../src/cli/main.ts')),
      builtinsLoadedBy(path.resolve(path.dirname(PAYGATE_BIN), '../src/cli/operatorActions.ts')),
    ]);
    expect(actions).toContain('NativeModule http');
    expect(cli.filter((name) => /NativeModule (http|https|http2|tls|worker_threads)$/.test(name))).toEqual([]);
  });

  it('runs its sources compiled, and compiles them again once one of them changes', async () => {
    const current = path.resolve(path.dirname(PAYGATE_BIN), '../node_modules/.cache/paygate/current.json');
    const build = async () => JSON.parse(await fs.readFile(current, 'utf8'));
    expect((await runCli(['--version'], {})).code).toBe(0);
    const before = await build();
    const source = path.resolve(path.dirname(PAYGATE_BIN), '../src/userFacingError.ts');
    expect(Object.keys(before.inputs)).toContain(source);
    // A build belongs to the checkout that made it: a copy of the folder does not run the original's sources.
    expect(path.resolve(before.package)).toBe(path.resolve(path.dirname(PAYGATE_BIN), '..'));
    await fs.access(before.entry);

    const later = new Date(Date.now() + 1000);
    await fs.utimes(source, later, later);
    const version = await runCli(['--version'], {});
    expect(version.code, version.stderr).toBe(0);
    const after = await build();
    expect(after.id).not.toBe(before.id);
    expect(after.inputs[source]).not.toBe(before.inputs[source]);
    await fs.access(after.entry);
  });

  it('prints its version, as its package names it', async () => {
    const manifest = JSON.parse(await fs.readFile(path.resolve(path.dirname(PAYGATE_BIN), '../package.json'), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const printed = await runCli([flag], {});
      expect([printed.code, printed.stdout], printed.stderr).toEqual([0, `${manifest.version}\n`]);
    }
  });
});

describe('paygate devnet', () => {
  it('runs the local chains on their own, prints a manifest whose RPC endpoints answer, and stops on SIGTERM', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-devnet-cli-'));
    const child = spawn(process.execPath, [PAYGATE_BIN, 'devnet'], {
      env: childEnv({ DATA_DIR: dataDir }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      const manifest = await new Promise<{ evm: { rpcUrl: string; chainId: number }[]; solana: { rpcUrl: string } }>(
        (resolve, reject) => {
          child.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk.toString();
            try {
              resolve(JSON.parse(stdout));
            } catch {
              // The manifest is not complete yet.
            }
          });
          child.once('exit', (code) => reject(new Error(`paygate devnet exited with ${code}`)));
        },
      );
      expect(manifest.evm).toHaveLength(2);
      const rpc = (url: string, method: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
        }).then((response) => response.json());
      expect(Number.parseInt((await rpc(manifest.evm[0]!.rpcUrl, 'eth_chainId')).result, 16)).toBe(
        manifest.evm[0]!.chainId,
      );
      expect((await rpc(manifest.solana.rpcUrl, 'getHealth')).result).toBe('ok');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await expect(rpc(manifest.evm[0]!.rpcUrl, 'eth_chainId')).rejects.toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
