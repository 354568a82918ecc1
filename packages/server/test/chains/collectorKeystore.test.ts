import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Wallet } from '@ethereumjs/wallet';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectorAddresses, loadCollectorKeys } from '../../src/chains/collectorKeys.ts';
import { decryptKeystore, encryptKeystore } from '../../src/chains/keystore.ts';
import { ConfigError } from '../../src/config.ts';
import { NO_CHAIN_ENV, runCli, startServerProcess } from '../support/serverProcess.ts';
import { call } from '../support/testServer.ts';

/** A low scrypt cost, so the tests do not spend seconds on each file; the format is the same. */
const CHEAP = { n: 1024, r: 8, p: 1 };
const PASSPHRASE = 'correct horse battery staple';

describe('collector keystores (Web3 Secret Storage)', () => {
  let dir: string;
  const keys = {
    evmPrivateKey: `0x${randomBytes(32).toString('hex')}` as const,
    solanaSeedHex: randomBytes(32).toString('hex'),
  };

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-keystores-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("opens a wallet library's keystore, and the library opens this one: same key, same address", async () => {
    const secret = Buffer.from(keys.evmPrivateKey.slice(2), 'hex');
    const theirs = await Wallet.fromPrivateKey(secret).toV3(PASSPHRASE, { kdf: 'scrypt', n: CHEAP.n });
    expect((await decryptKeystore(theirs, PASSPHRASE)).toString('hex')).toBe(keys.evmPrivateKey.slice(2));
    const address = privateKeyToAccount(keys.evmPrivateKey).address;
    const ours = await encryptKeystore(secret, PASSPHRASE, { address, cost: CHEAP });
    const opened = await Wallet.fromV3(ours, PASSPHRASE);
    expect(opened.getPrivateKeyString()).toBe(keys.evmPrivateKey);
    expect(opened.getChecksumAddressString()).toBe(address);
  });

  it('refuses a wrong passphrase and a changed file, saying which', async () => {
    const keystore = await encryptKeystore(randomBytes(32), PASSPHRASE, { cost: CHEAP });
    await expect(decryptKeystore(keystore, 'wrong passphrase')).rejects.toThrow(/passphrase does not open/);
    const changed = structuredClone(keystore);
    changed.crypto.ciphertext = `00${changed.crypto.ciphertext.slice(2)}`;
    await expect(decryptKeystore(changed, PASSPHRASE)).rejects.toThrow(/passphrase does not open/);
    await expect(decryptKeystore({ version: 1 }, PASSPHRASE)).rejects.toThrow(/not a version 3 keystore/);
  });

  it('loads the keys from keystores with a passphrase file or typed, never together with keys in the environment', async () => {
    const evm = path.join(dir, 'evm.json');
    const solana = path.join(dir, 'solana.json');
    await fs.writeFile(
      evm,
      JSON.stringify(
        await encryptKeystore(Buffer.from(keys.evmPrivateKey.slice(2), 'hex'), PASSPHRASE, { cost: CHEAP }),
      ),
    );
    await fs.writeFile(
      solana,
      JSON.stringify(await encryptKeystore(Buffer.from(keys.solanaSeedHex, 'hex'), PASSPHRASE, { cost: CHEAP })),
    );
    const passwordFile = path.join(dir, 'passphrase');
    await fs.writeFile(passwordFile, `${PASSPHRASE}\n`);
    const keystores = { COLLECTOR_EVM_KEYSTORE: evm, COLLECTOR_SOLANA_KEYSTORE: solana };
    expect(
      await loadCollectorKeys({ ...keystores, COLLECTOR_KEYSTORE_PASSWORD_FILE: passwordFile }, dir, false),
    ).toEqual(keys);
    const asked: string[] = [];
    const typed = await loadCollectorKeys(keystores, dir, false, {
      prompt: async (question) => {
        asked.push(question);
        return PASSPHRASE;
      },
    });
    expect([typed, asked.length]).toEqual([keys, 1]);

    const refusals: [Record<string, string>, RegExp][] = [
      [keystores, /COLLECTOR_KEYSTORE_PASSWORD_FILE/],
      [{ COLLECTOR_EVM_KEYSTORE: evm, COLLECTOR_KEYSTORE_PASSWORD_FILE: passwordFile }, /set both/],
      [{ ...keystores, COLLECTOR_EVM_PRIVATE_KEY: keys.evmPrivateKey }, /not both/],
      [
        { ...keystores, COLLECTOR_KEYSTORE_PASSWORD_FILE: evm },
        /COLLECTOR_(EVM|SOLANA)_KEYSTORE .*passphrase does not open/,
      ],
    ];
    for (const [env, message] of refusals) {
      const refused = loadCollectorKeys(env, dir, false);
      await expect(refused).rejects.toBeInstanceOf(ConfigError);
      await expect(refused).rejects.toThrow(message);
    }
  });

  it('paygate collector keystore writes the running keys encrypted, never overwrites, and the service runs from them', async () => {
    const out = await fs.mkdtemp(path.join(dir, 'cli-'));
    const passwordFile = path.join(out, 'passphrase');
    await fs.writeFile(passwordFile, PASSPHRASE);
    const evm = path.join(out, 'evm.json');
    const solana = path.join(out, 'solana.json');
    const env = {
      ...NO_CHAIN_ENV,
      COLLECTOR_EVM_PRIVATE_KEY: keys.evmPrivateKey,
      COLLECTOR_SOLANA_SEED: keys.solanaSeedHex,
      DATABASE_URL: inject('databaseUrl'),
    };
    const args = ['collector', 'keystore', '--evm-out', evm, '--solana-out', solana, '--password-file', passwordFile];
    const written = await runCli(args, env);
    expect(written.code, written.stderr).toBe(0);
    const addresses = await collectorAddresses(keys);
    expect(JSON.parse(written.stdout)).toEqual({
      evm: { address: addresses.evm, keystore: evm },
      solana: { address: addresses.solana, keystore: solana },
    });
    expect(written.stdout + written.stderr).not.toContain(keys.evmPrivateKey.slice(2));
    for (const file of [evm, solana]) expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const again = await runCli(args, env);
    expect([again.code, again.stderr]).toEqual([1, `paygate: ${evm} exists: not overwritten\n`]);

    const server = await startServerProcess({
      DATABASE_URL: inject('databaseUrl'),
      DEMO_PARTNER: 'never',
      COLLECTOR_EVM_PRIVATE_KEY: '',
      COLLECTOR_SOLANA_SEED: '',
      COLLECTOR_EVM_KEYSTORE: evm,
      COLLECTOR_SOLANA_KEYSTORE: solana,
      COLLECTOR_KEYSTORE_PASSWORD_FILE: passwordFile,
    });
    try {
      const partner = JSON.parse(
        (await runCli(['partner', 'create', '--name', 'Keystore partner'], { DATABASE_URL: inject('databaseUrl') }))
          .stdout,
      );
      const merchant = await call(server, '/v1/merchants', {
        method: 'POST',
        headers: { 'api-key': partner.apiKey, 'idempotency-key': randomUUID() },
        body: { merchantName: 'Corner Shop', merchantEmail: 'owner@corner.shop' },
      });
      const supported = await call(server, '/v1/x402/supported', {
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchant.body.merchant.id },
      });
      expect(supported.body.signers['eip155:*']).toEqual([addresses.evm]);
      expect(server.output()).not.toContain(keys.evmPrivateKey.slice(2));
    } finally {
      await server.stop();
    }
  });
});
