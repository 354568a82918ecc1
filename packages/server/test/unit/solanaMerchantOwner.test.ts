import { address, getAddressFromPublicKey, getPublicKeyFromAddress, signBytes, verifySignature } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { solanaCollector } from '../../src/chains/solana/collectorKeyPair.ts';

const SEED = '11'.repeat(32);
const OTHER_SEED = '22'.repeat(32);

describe("a merchant's Solana owner, derived from the collector's seed", () => {
  it('is the same for a merchant on every derivation, and its key pair signs for that address', async () => {
    const collector = await solanaCollector({ solanaSeedHex: SEED });
    const again = await solanaCollector({ solanaSeedHex: SEED });
    const owner = collector.merchantOwner('mer_a');
    expect(again.merchantOwner('mer_a')).toBe(owner);
    const keyPair = await collector.merchantOwnerKeyPair('mer_a');
    expect(await getAddressFromPublicKey(keyPair.publicKey)).toBe(owner);
    const message = new TextEncoder().encode('sweep');
    const signature = await signBytes(keyPair.privateKey, message);
    expect(await verifySignature(await getPublicKeyFromAddress(address(owner)), signature, message)).toBe(true);
  });

  it("differs per merchant, from the collector, and under another collector's seed", async () => {
    const collector = await solanaCollector({ solanaSeedHex: SEED });
    const other = await solanaCollector({ solanaSeedHex: OTHER_SEED });
    const owners = [
      collector.address,
      collector.merchantOwner('mer_a'),
      collector.merchantOwner('mer_b'),
      other.merchantOwner('mer_a'),
    ];
    expect(new Set(owners).size).toBe(owners.length);
  });

  it('keeps its private key unreadable, as the collector keeps its own', async () => {
    const keyPair = await (await solanaCollector({ solanaSeedHex: SEED })).merchantOwnerKeyPair('mer_a');
    expect(keyPair.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('pkcs8', keyPair.privateKey)).rejects.toThrow();
  });
});
