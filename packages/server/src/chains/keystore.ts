import { createCipheriv, createDecipheriv, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import { keccak256 } from 'viem';

/**
 * Web3 Secret Storage (version 3, scrypt): the encrypted key file Ethereum clients write and read. The collector's
 * EVM key and its Solana seed are both kept in it, since each is 32 secret bytes. Node's own scrypt derives the key
 * (a JavaScript scrypt takes seconds at these settings); the format is checked against a wallet library's files in
 * the tests.
 */
export interface Keystore {
  version: 3;
  id: string;
  address?: string;
  crypto: {
    cipher: 'aes-128-ctr';
    cipherparams: { iv: string };
    ciphertext: string;
    kdf: 'scrypt';
    kdfparams: { dklen: number; n: number; r: number; p: number; salt: string };
    mac: string;
  };
}

/** The scrypt cost Ethereum clients write by default: about a second here, on purpose. */
const DEFAULT_COST = { n: 262_144, r: 8, p: 1 };

function derivedKey(passphrase: string, params: Keystore['crypto']['kdfparams']): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      passphrase.normalize('NFKC'),
      Buffer.from(params.salt, 'hex'),
      params.dklen,
      { N: params.n, r: params.r, p: params.p, maxmem: 256 * params.n * params.r + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

function macOf(key: Buffer, ciphertext: Buffer): Buffer {
  return Buffer.from(keccak256(Buffer.concat([key.subarray(16, 32), ciphertext])).slice(2), 'hex');
}

/** `secret` encrypted under `passphrase`; `address` (an EVM account's, without 0x) is written as wallets expect. */
export async function encryptKeystore(
  secret: Uint8Array,
  passphrase: string,
  options: { address?: string; cost?: { n: number; r: number; p: number } } = {},
): Promise<Keystore> {
  const kdfparams = { dklen: 32, ...(options.cost ?? DEFAULT_COST), salt: randomBytes(32).toString('hex') };
  const key = await derivedKey(passphrase, kdfparams);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-128-ctr', key.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  return {
    version: 3,
    id: randomUUID(),
    ...(options.address ? { address: options.address.replace(/^0x/, '').toLowerCase() } : {}),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'scrypt',
      kdfparams,
      mac: macOf(key, ciphertext).toString('hex'),
    },
  };
}

/** The secret a keystore holds; an error that says why when it is not one this reads or the passphrase is wrong. */
export async function decryptKeystore(file: unknown, passphrase: string): Promise<Buffer> {
  const keystore = file as Partial<Keystore>;
  const crypto = keystore?.crypto ?? (file as { Crypto?: Keystore['crypto'] })?.Crypto;
  if (keystore?.version !== 3 || !crypto) throw new Error('not a version 3 keystore (Web3 Secret Storage)');
  if (crypto.kdf !== 'scrypt' || crypto.cipher !== 'aes-128-ctr') {
    throw new Error(`a keystore of ${crypto.kdf} and ${crypto.cipher}; this reads scrypt and aes-128-ctr`);
  }
  const key = await derivedKey(passphrase, crypto.kdfparams);
  const ciphertext = Buffer.from(crypto.ciphertext, 'hex');
  const mac = Buffer.from(crypto.mac, 'hex');
  const expected = macOf(key, ciphertext);
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
    throw new Error('the passphrase does not open this keystore (or the file was changed)');
  }
  const decipher = createDecipheriv('aes-128-ctr', key.subarray(0, 16), Buffer.from(crypto.cipherparams.iv, 'hex'));
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}
