import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DataEncryptionKey, dataEncryptionKeyInDataDir } from '../../src/dataEncryptionKey.ts';
import { FormTokenSigner } from '../../src/gateway/dataCollection/formToken.ts';

describe('form tokens', () => {
  const signer = new FormTokenSigner('secret-one');
  const now = new Date('2026-11-22T10:00:00Z');
  const claims = {
    paymentId: 'pay_01',
    scope: 'eip155:1:0x1111111111111111111111111111111111111111',
    expiresAt: now.getTime() / 1000 + 600,
  };

  it('round-trips its claims until they expire', () => {
    const token = signer.sign(claims);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(signer.check(token, now)).toEqual({ ok: true, claims });
    expect(signer.check(token, new Date((claims.expiresAt - 1) * 1000)).ok).toBe(true);
    expect(signer.check(token, new Date(claims.expiresAt * 1000))).toEqual({ ok: false, reason: 'link_expired' });
  });

  it('refuses another secret, any changed character, another account spliced in, and junk', () => {
    const token = signer.sign(claims);
    expect(new FormTokenSigner('secret-two').check(token, now)).toEqual({ ok: false, reason: 'invalid_link' });
    for (let index = 0; index < token.length; index += 1) {
      const replacement = token[index] === 'A' ? 'B' : 'A';
      const altered = `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
      expect(signer.check(altered, now).ok, `changed at ${index}`).toBe(false);
    }
    const otherPayload = signer
      .sign({ ...claims, scope: 'eip155:1:0x2222222222222222222222222222222222222222' })
      .split('.')[0];
    expect(signer.check(`${otherPayload}.${token.split('.')[1]}`, now)).toEqual({ ok: false, reason: 'invalid_link' });
    for (const junk of ['', 'a.b', `${'x'.repeat(20)}.${'y'.repeat(43)}`, token.replace('.', '')]) {
      expect(signer.check(junk, now)).toEqual({ ok: false, reason: 'invalid_link' });
    }
  });
});

describe('data encryption key', () => {
  const key = new DataEncryptionKey(randomBytes(32));

  it('encrypts with a fresh nonce each time and decrypts only with the same key and associated data', () => {
    const plaintext = Buffer.from('{"fullName":"Ada Lovelace"}');
    const first = key.encrypt(plaintext, 'pay_1/acct');
    const second = key.encrypt(plaintext, 'pay_1/acct');
    expect(first.nonce.equals(second.nonce)).toBe(false);
    expect(first.ciphertext.includes(Buffer.from('Ada'))).toBe(false);
    expect(key.decrypt(first, 'pay_1/acct').equals(plaintext)).toBe(true);
    expect(() => key.decrypt(first, 'pay_2/acct')).toThrow();
    const flipped = Buffer.from(first.ciphertext);
    flipped.writeUInt8((flipped[0] as number) ^ 1, 0);
    expect(() => key.decrypt({ ...first, ciphertext: flipped }, 'pay_1/acct')).toThrow();
    expect(() => new DataEncryptionKey(randomBytes(32)).decrypt(first, 'pay_1/acct')).toThrow(/encrypted with key/);
  });

  it('parses hex and base64, refuses other lengths, and never shows its bytes', () => {
    const bytes = randomBytes(32);
    expect(DataEncryptionKey.parse(bytes.toString('hex'), 'K').id).toBe(new DataEncryptionKey(bytes).id);
    expect(DataEncryptionKey.parse(bytes.toString('base64'), 'K').id).toBe(new DataEncryptionKey(bytes).id);
    expect(DataEncryptionKey.parse(bytes.toString('base64url'), 'K').id).toBe(new DataEncryptionKey(bytes).id);
    expect(() => DataEncryptionKey.parse(randomBytes(16).toString('hex'), 'K')).toThrow(/K must be 32 bytes/);
    expect(() => DataEncryptionKey.parse('not a key', 'K')).toThrow(/K must be 32 bytes/);
    const parsed = DataEncryptionKey.parse(bytes.toString('hex'), 'K');
    for (const shown of [JSON.stringify({ parsed }), inspect(parsed, { showHidden: true, depth: 5 })]) {
      expect(shown).not.toContain(bytes.toString('hex'));
      expect(shown).not.toContain(bytes.toString('base64'));
    }
  });

  it('is generated once into DATA_DIR and then reused, readable by its owner only', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-key-'));
    try {
      const [first, second] = await Promise.all([
        dataEncryptionKeyInDataDir(dataDir),
        dataEncryptionKeyInDataDir(dataDir),
      ]);
      expect(second.id).toBe(first.id);
      expect((await dataEncryptionKeyInDataDir(dataDir)).id).toBe(first.id);
      const stat = await fs.stat(path.join(dataDir, 'data-encryption.key'));
      expect(stat.mode & 0o777).toBe(0o600);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
