import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

const ALGORITHM = 'aes-256-gcm';
const NONCE_BYTES = 12;
const KEY_FILE = 'data-encryption.key';

export class DataEncryptionKeyError extends Error {
  override readonly name = 'DataEncryptionKeyError';
}

/**
 * The key that encrypts buyer data at rest. The key material sits in a KeyObject, which neither logs nor
 * serialises its bytes; `id` is a fingerprint stored beside each row to tell which key wrote it.
 */
export class DataEncryptionKey {
  readonly id: string;
  readonly #key: KeyObject;

  constructor(bytes: Buffer) {
    if (bytes.length !== 32) throw new DataEncryptionKeyError('the data encryption key must be 32 bytes');
    this.#key = createSecretKey(bytes);
    this.id = createHash('sha256').update('paygate data encryption key id').update(bytes).digest('hex').slice(0, 16);
  }

  /** 64 hex characters, or 32 bytes in base64 (standard or URL-safe). */
  static parse(text: string, source: string): DataEncryptionKey {
    const trimmed = text.trim();
    const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed)
      ? Buffer.from(trimmed, 'hex')
      : /^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)
        ? Buffer.from(trimmed, 'base64')
        : undefined;
    if (bytes?.length !== 32)
      throw new DataEncryptionKeyError(`${source} must be 32 bytes as 64 hex characters or base64`);
    return new DataEncryptionKey(bytes);
  }

  encrypt(plaintext: Buffer, associatedData: string): EncryptedData {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, nonce);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { keyId: this.id, nonce, ciphertext, authTag: cipher.getAuthTag() };
  }

  /** Throws when the data was altered, moved to another row (other associated data) or written with another key. */
  decrypt(encrypted: EncryptedData, associatedData: string): Buffer {
    if (encrypted.keyId !== this.id)
      throw new DataEncryptionKeyError(`the data was encrypted with key ${encrypted.keyId}, not ${this.id}`);
    const decipher = createDecipheriv(ALGORITHM, this.#key, encrypted.nonce);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(encrypted.authTag);
    return Buffer.concat([decipher.update(encrypted.ciphertext), decipher.final()]);
  }

  toJSON(): string {
    return `[data encryption key ${this.id}]`;
  }
}

export interface EncryptedData {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

/**
 * The key kept in DATA_DIR, created on first use: the default of the embedded database and the devnet, where one
 * machine holds both the data and the key. Elsewhere DATA_ENCRYPTION_KEY gives every process the same key.
 */
export async function dataEncryptionKeyInDataDir(dataDir: string): Promise<DataEncryptionKey> {
  const file = path.join(dataDir, KEY_FILE);
  await fs.mkdir(dataDir, { recursive: true });
  await fs
    .writeFile(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
    .catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  return DataEncryptionKey.parse(await fs.readFile(file, 'utf8'), file);
}
