import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isAddress as isSolanaAddress } from '@solana/kit';
import { getAddress, isAddress as isEvmAddress, type Address } from 'viem';
import {
  buyerSpecs,
  evmKey,
  faucetEvm,
  faucetHoldings,
  faucetSolana,
  fundAmounts,
  solanaKey,
  type BuyerHoldings,
} from './accounts.ts';
import { startAnvil, type AnvilNode } from './evm/anvil.ts';
import {
  BLOCK_TIME_SECONDS,
  describeEvmChain,
  EvmChainController,
  evmChainSpecs,
  type EvmDeployment,
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
} from './evm/chain.ts';
import { creditHolders, describeSolana, startSolanaNode, type SolanaNode } from './solana/node.ts';
import type {
  Devnet,
  DevnetBuyer,
  DevnetEvmChain,
  DevnetManifest,
  DevnetOptions,
  DevnetToken,
  FundedAmount,
  FundRequest,
} from './types.ts';

const MANIFEST_FILE = 'manifest.json';
const DEFAULT_SOLANA_SLOT_MS = 400;

function readRecordedManifest(dataDir: string): DevnetManifest | null {
  try {
    return JSON.parse(readFileSync(join(dataDir, MANIFEST_FILE), 'utf8')) as DevnetManifest;
  } catch {
    return null;
  }
}

function writeManifest(dataDir: string, manifest: DevnetManifest): void {
  const path = join(dataDir, MANIFEST_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** The contracts a manifest records; `usds` and `weth` are absent from one written before the devnet had them. */
function recordedDeployment(
  chain: DevnetEvmChain | undefined,
): (Omit<EvmDeployment, 'usds' | 'weth'> & Partial<Pick<EvmDeployment, 'usds' | 'weth'>>) | null {
  if (!chain) return null;
  const bySymbol = (symbol: string) =>
    chain.tokens.find((token) => token.symbol === symbol)?.address as Address | undefined;
  const usdc = bySymbol('USDC');
  const eurc = bySymbol('EURC');
  const usdt = bySymbol('USDT');
  const usds = bySymbol('USDS');
  const weth = bySymbol('WETH');
  return usdc && eurc && usdt
    ? {
        usdc,
        eurc,
        usdt,
        ...(usds && weth ? { usds, weth } : {}),
        permit2: chain.permit2 as Address,
        x402ExactPermit2Proxy: X402_EXACT_PERMIT2_PROXY_ADDRESS,
      }
    : null;
}

function portFromUrl(url: string | undefined): number {
  return url ? Number(new URL(url).port) || 0 : 0;
}

/** Tries the preferred port first (to keep RPC URLs stable across restarts) and any free port if it is taken. */
async function withPortFallback<T>(preferred: number, fixed: boolean, start: (port: number) => Promise<T>): Promise<T> {
  if (fixed || preferred === 0) return start(preferred);
  try {
    return await start(preferred);
  } catch {
    return start(0);
  }
}

function buyersOf(): DevnetBuyer[] {
  return buyerSpecs.map((spec) => {
    const evm = evmKey(spec.name);
    const solana = solanaKey(spec.name);
    return {
      name: spec.name,
      description: spec.description,
      evmPrivateKey: evm.privateKey,
      evmAddress: evm.address,
      solanaSecretKey: solana.secretKeyBase58,
      solanaAddress: solana.address,
    };
  });
}

interface Holder {
  evm: ReturnType<typeof evmKey>;
  solanaAddress: string;
  holdings: BuyerHoldings;
}

function holders(): Holder[] {
  return [
    { evm: faucetEvm, solanaAddress: faucetSolana.address, holdings: faucetHoldings },
    ...buyerSpecs.map((spec) => ({
      evm: evmKey(spec.name),
      solanaAddress: solanaKey(spec.name).address,
      holdings: spec.holdings,
    })),
  ];
}

/**
 * Starts two anvil chains with USDC, EURC, a USDT stand-in, an EIP-2612 USDS stand-in, wrapped ether and Permit2,
 * and a LiteSVM-backed Solana RPC with USDC. A data dir that already holds a devnet is resumed: same addresses, same balances.
 */
export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => undefined);
  const slotMs = options.solanaSlotMs ?? DEFAULT_SOLANA_SLOT_MS;
  const recorded = readRecordedManifest(dataDir);

  const anvils: AnvilNode[] = [];
  let solana: SolanaNode | null = null;
  const stopAll = async () => {
    await Promise.allSettled([...anvils.map((node) => node.stop()), solana?.stop()]);
  };

  try {
    const evmStarts = evmChainSpecs.map(async (spec, index) => {
      const recordedChain = recorded?.evm.find((chain) => chain.chainId === spec.chainId);
      const fixedPort = options.ports?.evm?.[index] ?? 0;
      const node = await withPortFallback(fixedPort || portFromUrl(recordedChain?.rpcUrl), fixedPort !== 0, (port) =>
        startAnvil({
          host,
          port,
          chainId: spec.chainId,
          blockTimeSeconds: BLOCK_TIME_SECONDS,
          stateFile: join(dataDir, `anvil-${spec.chainId}.json`),
          log,
        }),
      );
      anvils.push(node);
      const controller = new EvmChainController(spec.chainId, spec.name, node.rpcUrl);
      const recordedContracts = recordedDeployment(recordedChain);
      const hasCode = async (addresses: (Address | undefined)[]) =>
        (await Promise.all(addresses.map((address) => address !== undefined && controller.hasCode(address)))).every(
          Boolean,
        );
      const evmHolders = holders().map((holder) => ({
        address: holder.evm.address,
        key: holder.evm,
        holdings: holder.holdings,
      }));
      let deployment: EvmDeployment;
      if (
        !recordedContracts ||
        !(await hasCode([recordedContracts.usdc, recordedContracts.eurc, recordedContracts.usdt, PERMIT2_ADDRESS]))
      ) {
        log(`chain ${spec.chainId}: deploying contracts and funding accounts`);
        deployment = await controller.deployContracts(evmHolders);
      } else {
        await controller.placeX402ExactPermit2Proxy();
        const { usds, weth } = recordedContracts;
        if (usds && weth && (await hasCode([usds, weth]))) deployment = { ...recordedContracts, usds, weth };
        else {
          log(`chain ${spec.chainId}: deploying the USDS stand-in and wrapped ether`);
          deployment = await controller.deployLaterTokens(recordedContracts, evmHolders);
        }
      }
      return { controller, deployment, chain: describeEvmChain(spec.chainId, spec.name, node.rpcUrl, deployment) };
    });

    const solanaStart = (async () => {
      const fixedPort = options.ports?.solana ?? 0;
      solana = await withPortFallback(fixedPort || portFromUrl(recorded?.solana.rpcUrl), fixedPort !== 0, (port) =>
        startSolanaNode({ dataDir, host, port, slotMs, log }),
      );
      if (!solana.restored) {
        log('solana: funding accounts');
        await creditHolders(
          solana,
          holders().map((holder) => ({ address: holder.solanaAddress, holdings: holder.holdings })),
        );
      }
      return solana;
    })();

    const [evmResults, solanaResult] = await Promise.all([
      Promise.allSettled(evmStarts),
      Promise.allSettled([solanaStart]),
    ]);
    const failure = [...evmResults, ...solanaResult].find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    const evm = evmResults.map(
      (result) => (result as PromiseFulfilledResult<Awaited<(typeof evmStarts)[number]>>).value,
    );
    const solanaNode = (solanaResult[0] as PromiseFulfilledResult<SolanaNode>).value;

    const manifest: DevnetManifest = {
      evm: evm.map((entry) => entry.chain),
      solana: describeSolana(solanaNode, slotMs),
      buyers: buyersOf(),
      faucet: {
        evmPrivateKey: faucetEvm.privateKey,
        evmAddress: faucetEvm.address,
        solanaSecretKey: faucetSolana.secretKeyBase58,
        solanaAddress: faucetSolana.address,
      },
    };
    writeManifest(dataDir, manifest);

    let stopping: Promise<void> | null = null;
    return {
      manifest,
      fund: async ({ evm: evmAddresses = [], solana: solanaAddresses = [] }: FundRequest) => {
        for (const address of evmAddresses)
          if (!isEvmAddress(address, { strict: false })) throw new Error(`not an EVM address: ${address}`);
        for (const address of solanaAddresses)
          if (!isSolanaAddress(address)) throw new Error(`not a Solana address: ${address}`);
        const tokens = {
          USDC: fundAmounts.token,
          EURC: fundAmounts.token,
          USDT: fundAmounts.token,
          USDS: fundAmounts.token,
          WETH: fundAmounts.native,
        };
        const minor = (whole: bigint, token: DevnetToken) => whole * 10n ** BigInt(token.decimals);
        const [evmCredited, solanaCredited] = await Promise.all([
          Promise.all(
            evm.map(async ({ controller, deployment, chain }) => {
              const credited: FundedAmount[] = [];
              for (const address of evmAddresses) {
                const mints = await controller.credit(deployment, getAddress(address), fundAmounts.native, tokens);
                credited.push(
                  { address, asset: chain.nativeToken.caip19, amount: minor(fundAmounts.native, chain.nativeToken) },
                  ...chain.tokens.flatMap((token) => {
                    const symbol = token.symbol as keyof typeof tokens;
                    const txHash = mints[symbol];
                    return txHash
                      ? [{ address, asset: token.caip19, amount: minor(tokens[symbol], token), txHash }]
                      : [];
                  }),
                );
              }
              return credited;
            }),
          ),
          (async () => {
            const credited: FundedAmount[] = [];
            for (const address of solanaAddresses) {
              const signatures = await solanaNode.credit(address, fundAmounts.native, fundAmounts.token);
              const { nativeToken } = manifest.solana;
              credited.push(
                {
                  address,
                  asset: nativeToken.caip19,
                  amount: minor(fundAmounts.native, nativeToken),
                  ...(signatures.sol ? { txHash: signatures.sol } : {}),
                },
                ...manifest.solana.tokens
                  .filter((token) => token.symbol === 'USDC')
                  .map((token) => ({
                    address,
                    asset: token.caip19,
                    amount: minor(fundAmounts.token, token),
                    ...(signatures.usdc ? { txHash: signatures.usdc } : {}),
                  })),
              );
            }
            return credited;
          })(),
        ]);
        const credited: FundedAmount[] = [...evmCredited.flat(), ...solanaCredited];
        return credited;
      },
      stop: () => {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
