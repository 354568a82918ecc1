import { createHash } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getTransactionEncoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { BuyerHoldings } from '../accounts.ts';
import { operatorSolana, solanaKey, usdcMintSolana } from '../accounts.ts';
import type { DevnetSolana } from '../types.ts';
import { base58, MEMO_PROGRAM } from './accounts.ts';
import { SolanaLedger } from './ledger.ts';
import { createSolanaRpcServer, listen, solanaRpcMethods } from './rpc.ts';

export const LAMPORTS_PER_SOL = 1_000_000_000n;
const USDC_DECIMALS = 6;
const SAVE_INTERVAL_MS = 1000;

/** The devnet's own genesis hash: fixed, so its CAIP-2 id never changes. */
export const SOLANA_GENESIS_HASH = base58(createHash('sha256').update('paygate devnet solana genesis').digest());

// Requested airdrops are real transfers from this account, so they show up like any other transaction.
const airdropKey = solanaKey('airdrop');
const AIRDROP_RESERVE = 1_000_000_000n * LAMPORTS_PER_SOL;

export interface SolanaNode {
  rpcUrl: string;
  port: number;
  ledger: SolanaLedger;
  restored: boolean;
  /** Adds SOL and USDC (whole units) to an owner, creating its associated token account. */
  /** Airdrops SOL and mints USDC to `owner`: the signatures of the transactions that moved each. */
  credit(owner: string, sol: bigint, usdc: bigint): Promise<{ sol?: string; usdc?: string }>;
  usdcMint: string;
  stop(): Promise<void>;
}

export interface SolanaNodeOptions {
  dataDir: string;
  host: string;
  port: number;
  slotMs: number;
  log: (line: string) => void;
}

export async function startSolanaNode(options: SolanaNodeOptions): Promise<SolanaNode> {
  const { ledger, restored } = SolanaLedger.open(options.dataDir);
  const operator = await createKeyPairSignerFromBytes(operatorSolana.secretKey);
  const airdropSigner = await createKeyPairSignerFromBytes(airdropKey.secretKey);
  const usdcMint = address(usdcMintSolana.address);
  let airdropCount = 0;

  const submit = async (feePayer: KeyPairSigner, instructions: Instruction[]): Promise<string> => {
    const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayerSigner(feePayer, draft),
      (draft) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash as Blockhash, lastValidBlockHeight: BigInt(lastValidBlockHeight) },
          draft,
        ),
      (draft) => appendTransactionMessageInstructions(instructions, draft),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const signature = ledger.send(new Uint8Array(getTransactionEncoder().encode(signed)), { skipPreflight: false });
    const record = ledger.transaction(signature);
    if (!record || record.err !== null)
      throw new Error(`devnet transaction ${signature} failed: ${JSON.stringify(record?.err)}`);
    return signature;
  };

  const airdrop = (to: string, amount: bigint): Promise<string> => {
    airdropCount += 1;
    return submit(airdropSigner, [
      getTransferSolInstruction({ source: airdropSigner, destination: address(to), amount: lamports(amount) }),
      // Keeps two equal airdrops in one slot from being the same transaction.
      {
        programAddress: MEMO_PROGRAM as Address,
        data: new TextEncoder().encode(`devnet airdrop ${Date.now()}-${airdropCount}`),
      },
    ]);
  };

  const credit = async (owner: string, sol: bigint, usdc: bigint): Promise<{ sol?: string; usdc?: string }> => {
    const signatures: { sol?: string; usdc?: string } = {};
    if (sol > 0n) signatures.sol = await airdrop(owner, sol * LAMPORTS_PER_SOL);
    if (usdc > 0n) {
      const [ata] = await findAssociatedTokenPda({
        owner: address(owner),
        mint: usdcMint,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      });
      signatures.usdc = await submit(operator, [
        getCreateAssociatedTokenIdempotentInstruction({ payer: operator, ata, owner: address(owner), mint: usdcMint }),
        getMintToCheckedInstruction({
          mint: usdcMint,
          token: ata,
          mintAuthority: operator,
          amount: usdc * 10n ** BigInt(USDC_DECIMALS),
          decimals: USDC_DECIMALS,
        }),
      ]);
    }
    return signatures;
  };

  if (!restored) {
    ledger.setLamports(airdropKey.address, AIRDROP_RESERVE);
    await airdrop(operator.address, 1_000n * LAMPORTS_PER_SOL);
    const mintSigner = await createKeyPairSignerFromBytes(usdcMintSolana.secretKey);
    const mintSize = getMintSize();
    await submit(operator, [
      getCreateAccountInstruction({
        payer: operator,
        newAccount: mintSigner,
        lamports: lamports(ledger.minimumBalanceForRentExemption(mintSize)),
        space: mintSize,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      // USDC on mainnet has a freeze authority too; wallets and services see the same shape here.
      getInitializeMint2Instruction({
        mint: usdcMint,
        decimals: USDC_DECIMALS,
        mintAuthority: operator.address,
        freezeAuthority: operator.address,
      }),
    ]);
    ledger.save(true);
  }

  const server = createSolanaRpcServer(solanaRpcMethods({ ledger, genesisHash: SOLANA_GENESIS_HASH, airdrop }));
  let port: number;
  try {
    port = await listen(server, options.host, options.port);
  } catch (error) {
    server.close();
    throw error;
  }
  // The clock runs on its own so blockhashes age and expire as on a real cluster.
  const slotTimer = setInterval(() => ledger.advanceSlot(), options.slotMs);
  const saveTimer = setInterval(() => {
    try {
      ledger.save();
    } catch (error) {
      options.log(`solana: saving the ledger failed: ${(error as Error).message}`);
    }
  }, SAVE_INTERVAL_MS);
  const dialHost = options.host === '0.0.0.0' ? '127.0.0.1' : options.host;
  const rpcUrl = `http://${dialHost.includes(':') ? `[${dialHost}]` : dialHost}:${port}`;
  options.log(
    `solana (LiteSVM) listening on ${rpcUrl}, slot ${ledger.currentSlot}${restored ? ', state restored' : ''}`,
  );

  let stopped = false;
  return {
    rpcUrl,
    port,
    ledger,
    restored,
    credit,
    usdcMint,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(slotTimer);
      clearInterval(saveTimer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      ledger.save(true);
    },
  };
}

export async function creditHolders(
  node: SolanaNode,
  holders: { address: string; holdings: BuyerHoldings }[],
): Promise<void> {
  for (const holder of holders)
    await node.credit(holder.address, holder.holdings.solanaNative, holder.holdings.solanaUsdc);
}

export function describeSolana(node: SolanaNode, slotMs: number): DevnetSolana {
  const caip2 = `solana:${SOLANA_GENESIS_HASH.slice(0, 32)}`;
  return {
    caip2,
    name: 'Devnet Solana',
    rpcUrl: node.rpcUrl,
    genesisHash: SOLANA_GENESIS_HASH,
    slotMs,
    nativeToken: {
      caip19: `${caip2}/slip44:501`,
      symbol: 'SOL',
      name: 'Solana',
      decimals: 9,
      address: '',
      method: 'native',
    },
    tokens: [
      {
        caip19: `${caip2}/token:${node.usdcMint}`,
        symbol: 'USDC',
        name: 'USD Coin',
        decimals: USDC_DECIMALS,
        address: node.usdcMint,
        method: 'spl',
      },
    ],
  };
}
