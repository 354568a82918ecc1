import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  createDefaultRpcTransport,
  createKeyPairFromBytes,
  createSolanaRpcFromTransport,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  getBase64Encoder,
  lamports,
  partiallySignTransaction,
  signature as toSignature,
  address,
  type RpcTransport,
} from '@solana/kit';
import { startDevnet, type Devnet } from '@paygate/devnet';
import { solanaCollector, type SolanaCollector } from '../../../src/chains/solana/collectorKeyPair.ts';
import type { SolanaRpc } from '../../../src/chains/solana/rpc.ts';
import type { Db } from '../../../src/db/database.ts';
import { recordFunding } from '../../../src/ledger/funding.ts';

export interface SolanaTestbed {
  devnet: Devnet;
  rpc: SolanaRpc;
  /** The devnet's USDC mint. */
  usdc: string;
  /** A fresh collector holding SOL only: its USDC account does not exist until the first payment. */
  collector: SolanaCollector;
  /**
   * A journal scope of this test file's own: every devnet reports the same CAIP-2 id, and test files run
   * side by side on one database, so each file's chain gets a network id of its own.
   */
  network: string;
  /** Records the collector's SOL in `db` as the operator's funding on `network`: the sender's fees are paid out of it. */
  recordOperatorFunding(db: Db): Promise<void>;
  buyer(name: string): Promise<{ address: string; keyPair: CryptoKeyPair }>;
  close(): Promise<void>;
}

export async function startSolanaTestbed(options: { solanaSlotMs?: number } = {}): Promise<SolanaTestbed> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-solana-'));
  const devnet = await startDevnet({
    dataDir,
    ...(options.solanaSlotMs ? { solanaSlotMs: options.solanaSlotMs } : {}),
  });
  const rpc = countingRpc(devnet.manifest.solana.rpcUrl).rpc;
  const collector = await solanaCollector({ solanaSeedHex: randomBytes(32).toString('hex') });
  const airdropped = 10_000_000_000n;
  const airdrop = await rpc.requestAirdrop(address(collector.address), lamports(airdropped)).send();
  await waitFor(async () => (await rpc.getSignatureStatuses([toSignature(airdrop)]).send()).value[0] !== null);
  const usdc = devnet.manifest.solana.tokens.find((token) => token.symbol === 'USDC')?.address;
  if (!usdc) throw new Error('the devnet has no USDC mint');
  const network = `${devnet.manifest.solana.caip2}-${randomBytes(4).toString('hex')}`;
  return {
    devnet,
    rpc,
    usdc,
    collector,
    network,
    recordOperatorFunding: (db) => recordFunding(db, [{ asset: `${network}/slip44:501`, amount: airdropped }]),
    buyer: async (name) => {
      const buyer = devnet.manifest.buyers.find((candidate) => candidate.name === name);
      if (!buyer) throw new Error(`no buyer ${name}`);
      const keyPair = await createKeyPairFromBytes(new Uint8Array(getBase58Encoder().encode(buyer.solanaSecretKey)));
      return { address: buyer.solanaAddress, keyPair };
    },
    close: async () => {
      await devnet.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A real RPC client to `url` that counts the sendTransaction requests it makes. */
export function countingRpc(url: string): { rpc: SolanaRpc; sentTransactions: () => number } {
  const transport = createDefaultRpcTransport({ url });
  let sent = 0;
  const counting: RpcTransport = (config) => {
    if ((config.payload as { method?: string }).method === 'sendTransaction') sent += 1;
    return transport(config);
  };
  return { rpc: createSolanaRpcFromTransport(counting), sentTransactions: () => sent };
}

/** What a wallet does with `solana_signTransaction`: decode, add its own signature, return the whole transaction. */
export async function signAsWallet(transactionBase64: string, keyPair: CryptoKeyPair): Promise<string> {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(transactionBase64));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([keyPair], transaction));
}

export async function waitFor(condition: () => Promise<boolean>, timeoutMs = 20_000, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
