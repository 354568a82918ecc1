import { address, type Address } from '@solana/kit';
import { findAssociatedTokenPda, getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { SolanaRpc } from './rpc.ts';

export interface SolanaBalances {
  /** SOL in lamports. */
  lamports: bigint;
  /** Token minor units per mint, from the owner's associated token account (0 when it does not exist). */
  tokens: Record<string, bigint>;
}

// getMultipleAccounts takes at most 100 addresses per call.
const ACCOUNTS_PER_CALL = 100;

export interface ReadSolanaBalancesOptions {
  tokenProgram?: string;
  /** How final the state read must be; `confirmed` unless told. */
  commitment?: 'confirmed' | 'finalized';
}

/**
 * SOL and token balances of several owners in as few round trips as possible: the owners and their derived
 * associated token accounts are read together with getMultipleAccounts, at the commitment asked for.
 */
export async function readSolanaBalances(
  rpc: SolanaRpc,
  owners: readonly string[],
  mints: readonly string[],
  { tokenProgram = TOKEN_PROGRAM_ADDRESS, commitment = 'confirmed' }: ReadSolanaBalancesOptions = {},
): Promise<Record<string, SolanaBalances>> {
  const pairs = await Promise.all(
    owners.flatMap((owner) =>
      mints.map(async (mint) => {
        const [tokenAccount] = await findAssociatedTokenPda({
          owner: address(owner),
          mint: address(mint),
          tokenProgram: address(tokenProgram),
        });
        return { owner, mint, tokenAccount };
      }),
    ),
  );
  const accounts: Address[] = [...owners.map((owner) => address(owner)), ...pairs.map((pair) => pair.tokenAccount)];
  const chunks: Address[][] = [];
  for (let start = 0; start < accounts.length; start += ACCOUNTS_PER_CALL)
    chunks.push(accounts.slice(start, start + ACCOUNTS_PER_CALL));
  const results = (
    await Promise.all(
      chunks.map(
        async (chunk) => (await rpc.getMultipleAccounts(chunk, { encoding: 'base64', commitment }).send()).value,
      ),
    )
  ).flat();

  const balances: Record<string, SolanaBalances> = {};
  owners.forEach((owner, index) => {
    balances[owner] = {
      lamports: results[index]?.lamports ?? 0n,
      tokens: Object.fromEntries(mints.map((mint) => [mint, 0n])),
    };
  });
  const tokenDecoder = getTokenDecoder();
  pairs.forEach((pair, index) => {
    const account = results[owners.length + index];
    if (!account || account.owner !== tokenProgram) return;
    const token = tokenDecoder.decode(Buffer.from(account.data[0], 'base64'));
    (balances[pair.owner] as SolanaBalances).tokens[pair.mint] = token.amount;
  });
  return balances;
}
