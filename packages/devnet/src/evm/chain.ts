import {
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  maxUint256,
  parseAbi,
  parseEther,
  publicActions,
  type Abi,
  type Address,
  type Chain,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { BuyerHoldings, EvmKey } from '../accounts.ts';
import { operatorEvm, proxyAdminEvm } from '../accounts.ts';
import type { DevnetEvmChain, DevnetToken } from '../types.ts';
import { linkBytecode, loadCircleArtifact, loadCompiledArtifact } from './artifacts.ts';

/** The address Permit2 has on every public chain; wallets and SDKs expect it there. */
export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';

/**
 * The address of x402's `x402ExactPermit2Proxy` on public chains, the spender x402's `exact` EVM client names in every
 * Permit2 payment. The devnet places a proxy of its own with the same ABI there (`contracts/x402ExactPermit2Proxy.sol`).
 */
export const X402_EXACT_PERMIT2_PROXY_ADDRESS: Address = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001';

export const BLOCK_TIME_SECONDS = 1;

export const evmChainSpecs = [
  { chainId: 31337, name: 'Devnet EVM A' },
  { chainId: 31338, name: 'Devnet EVM B' },
] as const;

/** Contract addresses recorded in the data dir's manifest so a warm start reuses them. */
export interface EvmDeployment {
  usdc: Address;
  eurc: Address;
  usdt: Address;
  usds: Address;
  weth: Address;
  permit2: Address;
  x402ExactPermit2Proxy: Address;
}

export type EvmTokenSymbol = 'USDC' | 'EURC' | 'USDT' | 'USDS' | 'WETH';

/** The devnet's ERC-20 tokens: their names, decimals and how a buyer pays with each (D11). */
const EVM_TOKENS: Record<EvmTokenSymbol, { name: string; decimals: number; method: DevnetToken['method'] }> = {
  USDC: { name: 'USD Coin', decimals: 6, method: 'eip3009' },
  EURC: { name: 'EURC', decimals: 6, method: 'eip3009' },
  USDT: { name: 'Tether USD', decimals: 6, method: 'permit2' },
  USDS: { name: 'USDS Stablecoin', decimals: 18, method: 'eip2612' },
  WETH: { name: 'Wrapped Ether', decimals: 18, method: 'permit2' },
};

/** The tokens a holder approves Permit2 for when it is credited with `permit2Approved`. */
const PERMIT2_APPROVED: EvmTokenSymbol[] = ['USDT', 'WETH'];

const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);
const approveAbi = parseAbi(['function approve(address spender, uint256 amount) returns (bool)']);
const wrappedEtherAbi = parseAbi([
  'function deposit() payable',
  'function transfer(address to, uint256 amount) returns (bool)',
]);

function viemChain(chainId: number, name: string, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export class EvmChainController {
  readonly chain: Chain;
  private readonly test;
  private readonly reader;
  // Funding sends several transactions from the operator; one batch at a time keeps nonces straight.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly chainId: number,
    readonly name: string,
    readonly rpcUrl: string,
  ) {
    this.chain = viemChain(chainId, name, rpcUrl);
    this.test = createTestClient({ mode: 'anvil', chain: this.chain, transport: http(rpcUrl), pollingInterval: 50 });
    this.reader = createWalletClient({ chain: this.chain, transport: http(rpcUrl), pollingInterval: 50 }).extend(
      publicActions,
    );
  }

  private wallet(key: EvmKey) {
    return createWalletClient({
      account: privateKeyToAccount(key.privateKey),
      chain: this.chain,
      transport: http(this.rpcUrl),
      pollingInterval: 50,
    });
  }

  private async confirm(hash: Hex): Promise<Address | null> {
    const receipt = await this.reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted on chain ${this.chainId}`);
    return receipt.contractAddress ?? null;
  }

  private async deploy(key: EvmKey, abi: Abi | readonly unknown[], bytecode: Hex, args: unknown[]): Promise<Address> {
    const hash = await this.wallet(key).deployContract({ abi: abi as Abi, bytecode, args });
    const address = await this.confirm(hash);
    if (!address) throw new Error(`deployment ${hash} created no contract`);
    return getAddress(address);
  }

  private async call(key: EvmKey, address: Address, abi: Abi, functionName: string, args: unknown[]): Promise<void> {
    await this.confirm(await this.wallet(key).writeContract({ address, abi, functionName, args, chain: this.chain }));
  }

  async hasCode(address: Address): Promise<boolean> {
    const code = await this.reader.getCode({ address });
    return code !== undefined && code !== '0x';
  }

  /**
   * Deploys Circle's FiatToken (USDC, EURC behind proxies as on mainnet), the plain USDT stand-in, the EIP-2612 USDS
   * stand-in, wrapped ether, Permit2 and the x402 Permit2 proxy, then credits the given holders. Runs with automine so
   * setup does not wait for blocks.
   */
  async deployContracts(holders: { address: Address; key: EvmKey; holdings: BuyerHoldings }[]): Promise<EvmDeployment> {
    await this.test.setAutomine(true);
    await this.test.setBalance({ address: operatorEvm.address, value: parseEther('1000000') });
    await this.test.setBalance({ address: proxyAdminEvm.address, value: parseEther('10') });

    const signatureCheckerArtifact = loadCircleArtifact('util/SignatureChecker.sol/SignatureChecker.json');
    const signatureChecker = await this.deploy(
      operatorEvm,
      signatureCheckerArtifact.abi,
      signatureCheckerArtifact.bytecode,
      [],
    );
    const fiatTokenArtifact = loadCircleArtifact('v2/FiatTokenV2_2.sol/FiatTokenV2_2.json');
    const fiatTokenImplementation = await this.deploy(
      operatorEvm,
      fiatTokenArtifact.abi,
      linkBytecode(fiatTokenArtifact, { SignatureChecker: signatureChecker }),
      [],
    );
    const proxyArtifact = loadCircleArtifact('v1/FiatTokenProxy.sol/FiatTokenProxy.json');

    const deployFiatToken = async (name: string, symbol: string, currency: string): Promise<Address> => {
      const proxy = await this.deploy(proxyAdminEvm, proxyArtifact.abi, proxyArtifact.bytecode, [
        fiatTokenImplementation,
      ]);
      const abi = fiatTokenArtifact.abi;
      const roles = operatorEvm.address;
      await this.call(operatorEvm, proxy, abi, 'initialize', [
        name,
        symbol,
        currency,
        EVM_TOKENS.USDC.decimals,
        roles,
        roles,
        roles,
        roles,
      ]);
      await this.call(operatorEvm, proxy, abi, 'initializeV2', [name]);
      await this.call(operatorEvm, proxy, abi, 'initializeV2_1', [roles]);
      await this.call(operatorEvm, proxy, abi, 'initializeV2_2', [[], symbol]);
      await this.call(operatorEvm, proxy, abi, 'configureMinter', [roles, maxUint256 / 2n]);
      return proxy;
    };
    const usdc = await deployFiatToken('USD Coin', 'USDC', 'USD');
    const eurc = await deployFiatToken('EURC', 'EURC', 'EUR');
    const plainToken = loadCompiledArtifact('PlainToken');
    const usdt = await this.deploy(operatorEvm, plainToken.abi, plainToken.bytecode, [
      EVM_TOKENS.USDT.name,
      'USDT',
      EVM_TOKENS.USDT.decimals,
    ]);
    const { usds, weth } = await this.deployOpenZeppelinTokens();

    // The runtime code leaves Permit2's cached chain id at zero, so its EIP-712 domain is always
    // computed from the live chain id and its own address, which is right at the canonical address.
    await this.test.setCode({ address: PERMIT2_ADDRESS, bytecode: loadCompiledArtifact('Permit2').deployedBytecode });
    await this.placeX402ExactPermit2Proxy();

    const deployment: EvmDeployment = {
      usdc,
      eurc,
      usdt,
      usds,
      weth,
      permit2: PERMIT2_ADDRESS,
      x402ExactPermit2Proxy: X402_EXACT_PERMIT2_PROXY_ADDRESS,
    };
    await this.creditHolders(deployment, holders, Object.keys(EVM_TOKENS) as EvmTokenSymbol[], true);
    await this.test.setIntervalMining({ interval: BLOCK_TIME_SECONDS });
    return deployment;
  }

  /**
   * Deploys the tokens a devnet made before them lacks (the USDS stand-in and wrapped ether) into a resumed chain and
   * credits the holders with them, so its other contracts, balances and payments stay as they were.
   */
  async deployLaterTokens(
    earlier: Omit<EvmDeployment, 'usds' | 'weth'>,
    holders: { address: Address; key: EvmKey; holdings: BuyerHoldings }[],
  ): Promise<EvmDeployment> {
    await this.test.setAutomine(true);
    await this.test.setBalance({ address: operatorEvm.address, value: parseEther('1000000') });
    const deployment = { ...earlier, ...(await this.deployOpenZeppelinTokens()) };
    await this.creditHolders(deployment, holders, ['USDS', 'WETH'], false);
    await this.test.setIntervalMining({ interval: BLOCK_TIME_SECONDS });
    return deployment;
  }

  /** The tokens built on OpenZeppelin's contracts: USDS (EIP-2612 permit) and wrapped ether (Permit2). */
  private async deployOpenZeppelinTokens(): Promise<{ usds: Address; weth: Address }> {
    const permitToken = loadCompiledArtifact('PermitToken');
    const usds = await this.deploy(operatorEvm, permitToken.abi, permitToken.bytecode, [
      EVM_TOKENS.USDS.name,
      'USDS',
      EVM_TOKENS.USDS.decimals,
    ]);
    const wrappedEther = loadCompiledArtifact('WrappedEther');
    const weth = await this.deploy(operatorEvm, wrappedEther.abi, wrappedEther.bytecode, []);
    return { usds, weth };
  }

  /**
   * Credits each holder with its holdings of `symbols` (and of the native coin, with `native`), and approves Permit2
   * for those of them it has approved.
   */
  private async creditHolders(
    deployment: EvmDeployment,
    holders: { address: Address; key: EvmKey; holdings: BuyerHoldings }[],
    symbols: EvmTokenSymbol[],
    native: boolean,
  ): Promise<void> {
    for (const holder of holders) {
      const tokens = Object.fromEntries(
        symbols.map((symbol) => [symbol, holder.holdings.evmTokens[symbol] ?? 0n]),
      ) as Partial<Record<EvmTokenSymbol, bigint>>;
      await this.credit(deployment, holder.address, native ? holder.holdings.evmNative : 0n, tokens);
      if (!holder.holdings.permit2Approved) continue;
      for (const symbol of PERMIT2_APPROVED.filter((approved) => symbols.includes(approved))) {
        await this.call(holder.key, tokenAddress(deployment, symbol), approveAbi, 'approve', [
          PERMIT2_ADDRESS,
          maxUint256,
        ]);
      }
    }
  }

  /**
   * Places the runtime code of the devnet's x402 Permit2 proxy at x402's address. It holds no state between calls, so
   * placing it again on a resumed chain (one whose data dir predates it, or an older build of it) loses nothing.
   */
  async placeX402ExactPermit2Proxy(): Promise<void> {
    await this.test.setCode({
      address: X402_EXACT_PERMIT2_PROXY_ADDRESS,
      bytecode: loadCompiledArtifact('x402ExactPermit2Proxy').deployedBytecode,
    });
  }

  /**
   * Adds native coin and tokens (whole units) to an address; waits until the mints are mined. Returns each token's
   * mint transaction (for wrapped ether, the operator's transfer of what it wrapped), which a follower of the address
   * sees as a transfer to it.
   */
  credit(
    deployment: EvmDeployment,
    address: Address,
    native: bigint,
    tokens: Partial<Record<EvmTokenSymbol, bigint>>,
  ): Promise<Partial<Record<EvmTokenSymbol, Hex>>> {
    const run = this.queue.then(async () => {
      if (native > 0n) {
        const balance = await this.reader.getBalance({ address });
        await this.test.setBalance({ address, value: balance + native * 10n ** 18n });
      }
      const wallet = this.wallet(operatorEvm);
      let nonce = await this.reader.getTransactionCount({ address: operatorEvm.address, blockTag: 'pending' });
      const hashes: Partial<Record<EvmTokenSymbol, Hex>> = {};
      for (const [symbol, amount] of Object.entries(tokens) as [EvmTokenSymbol, bigint][]) {
        if (amount <= 0n) continue;
        const token = tokenAddress(deployment, symbol);
        const minor = amount * 10n ** BigInt(EVM_TOKENS[symbol].decimals);
        // Sent back to back with explicit nonces so one block mines them all.
        if (symbol === 'WETH') {
          // Wrapped ether has no minter: the operator wraps its own ether and passes the tokens on.
          await wallet.writeContract({
            address: token,
            abi: wrappedEtherAbi,
            functionName: 'deposit',
            value: minor,
            nonce: nonce++,
            chain: this.chain,
          });
          hashes[symbol] = await wallet.writeContract({
            address: token,
            abi: wrappedEtherAbi,
            functionName: 'transfer',
            args: [address, minor],
            nonce: nonce++,
            chain: this.chain,
          });
          continue;
        }
        hashes[symbol] = await wallet.writeContract({
          address: token,
          abi: mintAbi,
          functionName: 'mint',
          args: [address, minor],
          nonce: nonce++,
          chain: this.chain,
        });
      }
      for (const hash of Object.values(hashes)) await this.confirm(hash);
      return hashes;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function tokenAddress(deployment: EvmDeployment, symbol: EvmTokenSymbol): Address {
  const addresses: Record<EvmTokenSymbol, Address> = {
    USDC: deployment.usdc,
    EURC: deployment.eurc,
    USDT: deployment.usdt,
    USDS: deployment.usds,
    WETH: deployment.weth,
  };
  return addresses[symbol];
}

export function describeEvmChain(
  chainId: number,
  name: string,
  rpcUrl: string,
  deployment: EvmDeployment,
): DevnetEvmChain {
  const caip2 = `eip155:${chainId}`;
  const token = (symbol: EvmTokenSymbol): DevnetToken => {
    const address = tokenAddress(deployment, symbol);
    const { name: tokenName, decimals, method } = EVM_TOKENS[symbol];
    return { caip19: `${caip2}/erc20:${address}`, symbol, name: tokenName, decimals, address, method };
  };
  return {
    caip2,
    chainId,
    name,
    rpcUrl,
    blockTimeMs: BLOCK_TIME_SECONDS * 1000,
    nativeToken: {
      caip19: `${caip2}/slip44:60`,
      symbol: 'ETH',
      name: 'Ether',
      decimals: 18,
      address: '',
      method: 'native',
    },
    tokens: (Object.keys(EVM_TOKENS) as EvmTokenSymbol[]).map(token),
    permit2: deployment.permit2,
    x402ExactPermit2Proxy: deployment.x402ExactPermit2Proxy,
  };
}
