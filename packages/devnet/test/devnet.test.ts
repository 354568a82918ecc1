import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  isSolanaError,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  type Address,
  type Blockhash,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  hashDomain,
  http,
  maxUint256,
  parseAbi,
  parseSignature,
  toHex,
  type Abi,
  type Address as EvmAddress,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet, type DevnetBuyer, type DevnetEvmChain, type DevnetManifest } from '../src/index.ts';

const erc20Abi = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
]);
const permitTokenAbi = parseAbi([
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function nonces(address owner) view returns (uint256)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function transferFrom(address from, address to, uint256 amount) returns (bool)',
  'error ERC2612InvalidSigner(address signer, address owner)',
]);
const wrappedEtherAbi = parseAbi(['function withdraw(uint256 amount)']);
const fiatTokenAbi = parseAbi([
  'function version() view returns (string)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
]);
const permit2Artifact = JSON.parse(readFileSync(new URL('../artifacts/Permit2.json', import.meta.url), 'utf8')) as {
  abi: Abi;
  deployedBytecode: Hex;
  compiler: string;
};
const permit2Abi = permit2Artifact.abi;
const proxyArtifact = JSON.parse(
  readFileSync(new URL('../artifacts/x402ExactPermit2Proxy.json', import.meta.url), 'utf8'),
) as { abi: Abi; deployedBytecode: Hex };
const X402_PROXY: EvmAddress = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001';
/** What x402's `exact` EVM client signs for a Permit2 payment (`permit2WitnessTypes` in `@x402/evm`). */
const permitWitnessTypes = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const;

const USDC = 1_000_000n;

function buyer(manifest: DevnetManifest, name: string): DevnetBuyer {
  const found = manifest.buyers.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no buyer ${name}`);
  return found;
}

function token(chain: DevnetEvmChain, symbol: string): EvmAddress {
  const found = chain.tokens.find((candidate) => candidate.symbol === symbol);
  if (!found) throw new Error(`no ${symbol} on ${chain.caip2}`);
  return found.address as EvmAddress;
}

function evmClients(chain: DevnetEvmChain, privateKey: Hex) {
  const viemChain = {
    id: chain.chainId,
    name: chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  };
  const account = privateKeyToAccount(privateKey);
  return {
    account,
    reader: createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl), pollingInterval: 100 }),
    wallet: createWalletClient({ account, chain: viemChain, transport: http(chain.rpcUrl), pollingInterval: 100 }),
  };
}

async function tokenBalance(chain: DevnetEvmChain, tokenAddress: EvmAddress, owner: string): Promise<bigint> {
  const { reader } = evmClients(chain, generatePrivateKey());
  return reader.readContract({
    address: tokenAddress,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner as EvmAddress],
  });
}

async function solanaSigner(secretKeyBase58: string): Promise<KeyPairSigner> {
  return createKeyPairSignerFromBytes(getBase58Encoder().encode(secretKeyBase58));
}

async function waitForConfirmation(rpc: ReturnType<typeof createSolanaRpc>, signature: Signature): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    if (status?.err) throw new Error(`transaction failed: ${JSON.stringify(status.err)}`);
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${signature} was not confirmed`);
}

/** anvil processes started for this data dir, found by the state file on their command line. */
function anvilProcessesFor(dataDir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return commandLine[0]?.endsWith('anvil') && commandLine.some((argument) => argument.startsWith(dataDir));
      } catch {
        return false;
      }
    })
    .map(Number);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'paygate-devnet-'));
let devnet: Devnet;
let coldStartMs: number;

// Carried from the cold-start checks to the restart checks.
const before: {
  usdcTransfer?: { recipient: EvmAddress; amount: bigint };
  solanaTransfer?: { signature: Signature; recipientAta: Address; amount: bigint };
  manifest?: DevnetManifest;
} = {};

beforeAll(async () => {
  const started = performance.now();
  devnet = await startDevnet({ dataDir });
  coldStartMs = performance.now() - started;
  console.log(`devnet cold start: ${Math.round(coldStartMs)} ms`);
});

afterAll(async () => {
  await devnet?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cold start from an empty data dir', () => {
  it('describes two EVM chains and Solana with their tokens, buyers and faucet', () => {
    const { manifest } = devnet;
    expect(manifest.evm.map((chain) => chain.caip2)).toEqual(['eip155:31337', 'eip155:31338']);
    for (const chain of manifest.evm) {
      expect(chain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(chain.permit2).toBe('0x000000000022D473030F116dDEE9F6B43aC78BA3');
      expect(chain.x402ExactPermit2Proxy).toBe(X402_PROXY);
      expect(chain.nativeToken).toEqual({
        caip19: `${chain.caip2}/slip44:60`,
        symbol: 'ETH',
        name: 'Ether',
        decimals: 18,
        address: '',
        method: 'native',
      });
      expect(chain.tokens.map((entry) => [entry.symbol, entry.decimals, entry.method])).toEqual([
        ['USDC', 6, 'eip3009'],
        ['EURC', 6, 'eip3009'],
        ['USDT', 6, 'permit2'],
        ['USDS', 18, 'eip2612'],
        ['WETH', 18, 'permit2'],
      ]);
      for (const entry of chain.tokens) expect(entry.caip19).toBe(`${chain.caip2}/erc20:${entry.address}`);
    }
    expect(manifest.solana.caip2).toMatch(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/);
    expect(manifest.solana.caip2).toBe(`solana:${manifest.solana.genesisHash.slice(0, 32)}`);
    expect(manifest.solana.nativeToken.caip19).toBe(`${manifest.solana.caip2}/slip44:501`);
    const [usdc] = manifest.solana.tokens;
    expect(usdc).toMatchObject({
      symbol: 'USDC',
      decimals: 6,
      method: 'spl',
      caip19: `${manifest.solana.caip2}/token:${usdc?.address}`,
    });
    expect(manifest.buyers.map((entry) => entry.name)).toEqual(['alice', 'bob', 'carol', 'erin', 'dave']);
    for (const entry of manifest.buyers) {
      expect(privateKeyToAccount(entry.evmPrivateKey).address).toBe(entry.evmAddress);
      expect(entry.description.length).toBeGreaterThan(10);
    }
    expect(privateKeyToAccount(manifest.faucet.evmPrivateKey).address).toBe(manifest.faucet.evmAddress);
    expect(JSON.parse(readFileSync(join(dataDir, 'manifest.json'), 'utf8'))).toEqual(manifest);
  });

  it('runs real token contracts with the buyers balances on every chain', async () => {
    const { manifest } = devnet;
    const expectations: Record<string, Record<string, bigint>> = {
      alice: { USDC: 10_000n, EURC: 10_000n, USDT: 10_000n, USDS: 10_000n, WETH: 10n },
      bob: { USDC: 10_000n, EURC: 10_000n, USDT: 10_000n, USDS: 10_000n, WETH: 10n },
      carol: { USDC: 0n, EURC: 0n, USDT: 10_000n, USDS: 0n, WETH: 0n },
      erin: { USDC: 1_000n, EURC: 1_000n, USDT: 0n, USDS: 1_000n, WETH: 0n },
      dave: { USDC: 0n, EURC: 0n, USDT: 0n, USDS: 0n, WETH: 0n },
    };
    const nativeExpectations: Record<string, bigint> = { alice: 100n, bob: 100n, carol: 1n, erin: 0n, dave: 0n };
    for (const chain of manifest.evm) {
      const { reader } = evmClients(chain, generatePrivateKey());
      const names = {
        USDC: 'USD Coin',
        EURC: 'EURC',
        USDT: 'Tether USD',
        USDS: 'USDS Stablecoin',
        WETH: 'Wrapped Ether',
      } as Record<string, string>;
      for (const entry of chain.tokens) {
        const address = entry.address as EvmAddress;
        expect(await reader.readContract({ address, abi: erc20Abi, functionName: 'symbol' })).toBe(entry.symbol);
        expect(await reader.readContract({ address, abi: erc20Abi, functionName: 'name' })).toBe(names[entry.symbol]);
        expect(await reader.readContract({ address, abi: erc20Abi, functionName: 'decimals' })).toBe(entry.decimals);
      }
      expect(
        await reader.readContract({ address: token(chain, 'USDC'), abi: fiatTokenAbi, functionName: 'version' }),
      ).toBe('2');
      for (const [name, balances] of Object.entries(expectations)) {
        const holder = buyer(manifest, name).evmAddress;
        for (const [symbol, whole] of Object.entries(balances)) {
          const decimals = chain.tokens.find((entry) => entry.symbol === symbol)?.decimals ?? 0;
          expect(await tokenBalance(chain, token(chain, symbol), holder), `${name} ${symbol} on ${chain.caip2}`).toBe(
            whole * 10n ** BigInt(decimals),
          );
        }
        const native = await reader.getBalance({ address: holder as EvmAddress });
        const expectedNative = (nativeExpectations[name] ?? 0n) * 10n ** 18n;
        // Alice paid the gas of her Permit2 approvals during setup; everyone else sent nothing.
        if (name === 'alice') {
          expect(expectedNative - native, 'alice ETH spent on gas').toBeGreaterThan(0n);
          expect(expectedNative - native, 'alice ETH spent on gas').toBeLessThan(10n ** 15n);
        } else expect(native, `${name} ETH`).toBe(expectedNative);
      }
      const permit2 = chain.permit2 as EvmAddress;
      const usdt = token(chain, 'USDT');
      for (const approved of [usdt, token(chain, 'WETH')]) {
        expect(
          await reader.readContract({
            address: approved,
            abi: erc20Abi,
            functionName: 'allowance',
            args: [buyer(manifest, 'alice').evmAddress as EvmAddress, permit2],
          }),
        ).toBe(maxUint256);
      }
      expect(
        await reader.readContract({
          address: usdt,
          abi: erc20Abi,
          functionName: 'allowance',
          args: [buyer(manifest, 'carol').evmAddress as EvmAddress, permit2],
        }),
      ).toBe(0n);
      expect(await tokenBalance(chain, token(chain, 'USDC'), manifest.faucet.evmAddress)).toBe(1_000_000n * USDC);
    }
  });

  it('moves exactly the authorised amount with an EIP-3009 receiveWithAuthorization on USDC', async () => {
    const [chain] = devnet.manifest.evm;
    if (!chain) throw new Error('no chain');
    const usdc = token(chain, 'USDC');
    const alice = evmClients(chain, buyer(devnet.manifest, 'alice').evmPrivateKey);
    const collector = evmClients(chain, generatePrivateKey());
    await devnet.fund({ evm: [collector.account.address] });
    expect(await collector.reader.getBalance({ address: collector.account.address })).toBe(100n * 10n ** 18n);
    const collectorStart = await tokenBalance(chain, usdc, collector.account.address);
    expect(collectorStart).toBe(10_000n * USDC);
    const aliceStart = await tokenBalance(chain, usdc, alice.account.address);

    const value = 12_345_678n;
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)));
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const signature = await alice.wallet.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: chain.chainId, verifyingContract: usdc },
      types: {
        ReceiveWithAuthorization: [
          { name: 'from', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' },
          { name: 'validBefore', type: 'uint256' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'ReceiveWithAuthorization',
      message: {
        from: alice.account.address,
        to: collector.account.address,
        value,
        validAfter: 0n,
        validBefore,
        nonce,
      },
    });
    const hash = await collector.wallet.writeContract({
      address: usdc,
      abi: fiatTokenAbi,
      functionName: 'receiveWithAuthorization',
      args: [alice.account.address, collector.account.address, value, 0n, validBefore, nonce, signature],
    });
    const receipt = await collector.reader.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(await tokenBalance(chain, usdc, alice.account.address)).toBe(aliceStart - value);
    expect(await tokenBalance(chain, usdc, collector.account.address)).toBe(collectorStart + value);

    // The same authorisation cannot be used twice.
    await expect(
      collector.reader.simulateContract({
        account: collector.account,
        address: usdc,
        abi: fiatTokenAbi,
        functionName: 'receiveWithAuthorization',
        args: [alice.account.address, collector.account.address, value, 0n, validBefore, nonce, signature],
      }),
    ).rejects.toThrow(/authorization is used or canceled/);
    before.usdcTransfer = { recipient: collector.account.address, amount: value };
  });

  it('moves USDS with an EIP-2612 permit (one signature, the spender pays the gas), once per nonce', async () => {
    const chain = devnet.manifest.evm[0];
    if (!chain) throw new Error('no chain');
    const usds = token(chain, 'USDS');
    const erin = evmClients(chain, buyer(devnet.manifest, 'erin').evmPrivateKey);
    const spender = evmClients(chain, generatePrivateKey());
    await devnet.fund({ evm: [spender.account.address] });
    const domain = await erin.reader.readContract({ address: usds, abi: permitTokenAbi, functionName: 'eip712Domain' });
    expect(domain.slice(1, 5)).toEqual(['USDS Stablecoin', '1', BigInt(chain.chainId), usds]);

    const value = 25n * 10n ** 18n;
    const nonce = await erin.reader.readContract({
      address: usds,
      abi: permitTokenAbi,
      functionName: 'nonces',
      args: [erin.account.address],
    });
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 600);
    const signature = await erin.wallet.signTypedData({
      domain: { name: 'USDS Stablecoin', version: '1', chainId: chain.chainId, verifyingContract: usds },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: erin.account.address, spender: spender.account.address, value, nonce, deadline },
    });
    const { r, s, v } = parseSignature(signature);
    const permitArgs = [erin.account.address, spender.account.address, value, deadline, Number(v), r, s] as const;
    const permitted = await spender.wallet.writeContract({
      address: usds,
      abi: permitTokenAbi,
      functionName: 'permit',
      args: permitArgs,
    });
    expect((await spender.reader.waitForTransactionReceipt({ hash: permitted })).status).toBe('success');
    // The nonce is spent: the same signature cannot set the allowance again.
    await expect(
      spender.reader.simulateContract({
        account: spender.account,
        address: usds,
        abi: permitTokenAbi,
        functionName: 'permit',
        args: permitArgs,
      }),
    ).rejects.toThrow(/ERC2612InvalidSigner/);
    const erinStart = await tokenBalance(chain, usds, erin.account.address);
    const pulled = await spender.wallet.writeContract({
      address: usds,
      abi: permitTokenAbi,
      functionName: 'transferFrom',
      args: [erin.account.address, spender.account.address, value],
    });
    expect((await spender.reader.waitForTransactionReceipt({ hash: pulled })).status).toBe('success');
    expect(await tokenBalance(chain, usds, erin.account.address)).toBe(erinStart - value);
    expect(await tokenBalance(chain, usds, spender.account.address)).toBe(10_000n * 10n ** 18n + value);
    // Erin, who holds no ether, sent nothing.
    expect(await erin.reader.getBalance({ address: erin.account.address })).toBe(0n);
  });

  it('wraps and unwraps ether one token per wei, as WETH9', async () => {
    const chain = devnet.manifest.evm[0];
    if (!chain) throw new Error('no chain');
    const weth = token(chain, 'WETH');
    const holder = evmClients(chain, generatePrivateKey());
    await devnet.fund({ evm: [holder.account.address] });
    expect(await tokenBalance(chain, weth, holder.account.address)).toBe(100n * 10n ** 18n);
    const wrapped = await holder.wallet.sendTransaction({ to: weth, value: 3n * 10n ** 18n });
    expect((await holder.reader.waitForTransactionReceipt({ hash: wrapped })).status).toBe('success');
    expect(await tokenBalance(chain, weth, holder.account.address)).toBe(103n * 10n ** 18n);
    const before = await holder.reader.getBalance({ address: holder.account.address });
    const unwrapped = await holder.wallet.writeContract({
      address: weth,
      abi: wrappedEtherAbi,
      functionName: 'withdraw',
      args: [10n ** 18n],
    });
    const receipt = await holder.reader.waitForTransactionReceipt({ hash: unwrapped });
    expect(await tokenBalance(chain, weth, holder.account.address)).toBe(102n * 10n ** 18n);
    expect(await holder.reader.getBalance({ address: holder.account.address })).toBe(
      before + 10n ** 18n - receipt.gasUsed * receipt.effectiveGasPrice,
    );
  });

  it('moves USDT with a Permit2 permitTransferFrom after an approval', async () => {
    const chain = devnet.manifest.evm[1];
    if (!chain) throw new Error('no chain');
    const usdt = token(chain, 'USDT');
    const permit2 = chain.permit2 as EvmAddress;
    const bob = evmClients(chain, buyer(devnet.manifest, 'bob').evmPrivateKey);
    const collector = evmClients(chain, generatePrivateKey());
    await devnet.fund({ evm: [collector.account.address] });

    // The committed artifact (solc 0.8.17, via-IR) is what runs at the canonical address.
    expect(permit2Artifact.compiler).toMatch(/^0\.8\.17\+/);
    expect(await bob.reader.getCode({ address: permit2 })).toBe(permit2Artifact.deployedBytecode);
    expect(await bob.reader.readContract({ address: permit2, abi: permit2Abi, functionName: 'DOMAIN_SEPARATOR' })).toBe(
      hashDomain({
        domain: { name: 'Permit2', chainId: BigInt(chain.chainId), verifyingContract: permit2 },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      }),
    );

    const approval = await bob.wallet.writeContract({
      address: usdt,
      abi: erc20Abi,
      functionName: 'approve',
      args: [permit2, maxUint256],
    });
    expect((await bob.reader.waitForTransactionReceipt({ hash: approval })).status).toBe('success');

    const amount = 2_500_000n;
    const permit = {
      permitted: { token: usdt, amount },
      nonce: 7n,
      deadline: BigInt(Math.floor(Date.now() / 1000) + 600),
    };
    const signature = await bob.wallet.signTypedData({
      domain: { name: 'Permit2', chainId: chain.chainId, verifyingContract: permit2 },
      types: {
        PermitTransferFrom: [
          { name: 'permitted', type: 'TokenPermissions' },
          { name: 'spender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
        TokenPermissions: [
          { name: 'token', type: 'address' },
          { name: 'amount', type: 'uint256' },
        ],
      },
      primaryType: 'PermitTransferFrom',
      message: { ...permit, spender: collector.account.address },
    });
    const bobStart = await tokenBalance(chain, usdt, bob.account.address);
    const collectorStart = await tokenBalance(chain, usdt, collector.account.address);
    const hash = await collector.wallet.writeContract({
      address: permit2,
      abi: permit2Abi,
      functionName: 'permitTransferFrom',
      args: [permit, { to: collector.account.address, requestedAmount: amount }, bob.account.address, signature],
    });
    expect((await collector.reader.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await tokenBalance(chain, usdt, bob.account.address)).toBe(bobStart - amount);
    expect(await tokenBalance(chain, usdt, collector.account.address)).toBe(collectorStart + amount);
  });

  it("settles x402 Permit2 payments through the proxy at x402's address: once, not early, only to the witness", async () => {
    const chain = devnet.manifest.evm[1];
    if (!chain) throw new Error('no chain');
    const permit2 = chain.permit2 as EvmAddress;
    const alice = evmClients(chain, buyer(devnet.manifest, 'alice').evmPrivateKey);
    const bob = evmClients(chain, buyer(devnet.manifest, 'bob').evmPrivateKey);
    const relayer = evmClients(chain, generatePrivateKey());
    await devnet.fund({ evm: [relayer.account.address] });
    expect(await relayer.reader.getCode({ address: X402_PROXY })).toBe(proxyArtifact.deployedBytecode);

    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 600);
    const signPermit = (
      signer: ReturnType<typeof evmClients>,
      tokenAddress: EvmAddress,
      amount: bigint,
      nonce: bigint,
      witness: { to: EvmAddress; validAfter: bigint },
    ) =>
      signer.wallet.signTypedData({
        domain: { name: 'Permit2', chainId: chain.chainId, verifyingContract: permit2 },
        types: permitWitnessTypes,
        primaryType: 'PermitWitnessTransferFrom',
        message: { permitted: { token: tokenAddress, amount }, spender: X402_PROXY, nonce, deadline, witness },
      });
    const settleArgs = (
      tokenAddress: EvmAddress,
      amount: bigint,
      nonce: bigint,
      owner: EvmAddress,
      witness: { to: EvmAddress; validAfter: bigint },
      signature: Hex,
    ) => [{ permitted: { token: tokenAddress, amount }, nonce, deadline }, owner, witness, signature] as const;
    const simulateSettle = (args: readonly unknown[]) =>
      relayer.reader.simulateContract({
        account: relayer.account,
        address: X402_PROXY,
        // With Permit2's errors, which the proxy passes on.
        abi: [...proxyArtifact.abi, ...permit2Abi.filter((entry) => entry.type === 'error')],
        functionName: 'settle',
        args,
      });

    // Alice approved Permit2 for USDT when the devnet started.
    const usdt = token(chain, 'USDT');
    const amount = 1_250_000n;
    const witness = { to: recipient, validAfter: 0n };
    const signature = await signPermit(alice, usdt, amount, 11n, witness);
    const args = settleArgs(usdt, amount, 11n, alice.account.address, witness, signature);
    const early = { to: recipient, validAfter: deadline };
    await expect(
      simulateSettle(
        settleArgs(usdt, amount, 12n, alice.account.address, early, await signPermit(alice, usdt, amount, 12n, early)),
      ),
    ).rejects.toThrow(/PaymentTooEarly/);
    // The witness is signed: the relayer cannot send the tokens elsewhere.
    await expect(
      simulateSettle(
        settleArgs(
          usdt,
          amount,
          11n,
          alice.account.address,
          { to: relayer.account.address, validAfter: 0n },
          signature,
        ),
      ),
    ).rejects.toThrow();

    const aliceStart = await tokenBalance(chain, usdt, alice.account.address);
    const hash = await relayer.wallet.writeContract({
      address: X402_PROXY,
      abi: proxyArtifact.abi,
      functionName: 'settle',
      args,
    });
    expect((await relayer.reader.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await tokenBalance(chain, usdt, alice.account.address)).toBe(aliceStart - amount);
    expect(await tokenBalance(chain, usdt, recipient)).toBe(amount);
    // Permit2 spends the nonce once.
    await expect(simulateSettle(args)).rejects.toThrow(/InvalidNonce/);

    // Bob has no Permit2 allowance for USDC: settleWithPermit approves Permit2 with his EIP-2612 permit first.
    const usdc = token(chain, 'USDC');
    const permitNonce = await bob.reader.readContract({
      address: usdc,
      abi: parseAbi(['function nonces(address owner) view returns (uint256)']),
      functionName: 'nonces',
      args: [bob.account.address],
    });
    const approval = await bob.wallet.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: chain.chainId, verifyingContract: usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: bob.account.address, spender: permit2, value: amount, nonce: permitNonce, deadline },
    });
    const permit2612 = (value: bigint) => ({
      value,
      deadline,
      r: approval.slice(0, 66) as Hex,
      s: `0x${approval.slice(66, 130)}` as Hex,
      v: Number.parseInt(approval.slice(130, 132), 16),
    });
    const bobArgs = settleArgs(
      usdc,
      amount,
      13n,
      bob.account.address,
      witness,
      await signPermit(bob, usdc, amount, 13n, witness),
    );
    await expect(
      relayer.reader.simulateContract({
        account: relayer.account,
        address: X402_PROXY,
        abi: proxyArtifact.abi,
        functionName: 'settleWithPermit',
        args: [permit2612(amount + 1n), ...bobArgs],
      }),
    ).rejects.toThrow(/Permit2612AmountMismatch/);
    const withPermit = await relayer.wallet.writeContract({
      address: X402_PROXY,
      abi: proxyArtifact.abi,
      functionName: 'settleWithPermit',
      args: [permit2612(amount), ...bobArgs],
    });
    expect((await relayer.reader.waitForTransactionReceipt({ hash: withPermit })).status).toBe('success');
    expect(await tokenBalance(chain, usdc, recipient)).toBe(amount);
  });

  it('lets a @solana/kit client read balances and land a signed SPL transferChecked', async () => {
    const rpc = createSolanaRpc(devnet.manifest.solana.rpcUrl);
    const mint = devnet.manifest.solana.tokens[0]?.address as Address;
    const alice = await solanaSigner(buyer(devnet.manifest, 'alice').solanaSecretKey);
    const [aliceAta] = await findAssociatedTokenPda({
      owner: alice.address,
      mint,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });

    expect((await rpc.getBalance(alice.address).send()).value).toBe(100n * 1_000_000_000n);
    expect((await rpc.getTokenAccountBalance(aliceAta).send()).value).toMatchObject({
      amount: '10000000000',
      decimals: 6,
      uiAmountString: '10000',
    });
    const owned = await rpc.getTokenAccountsByOwner(alice.address, { mint }, { encoding: 'jsonParsed' }).send();
    expect(owned.value).toHaveLength(1);
    expect(owned.value[0]?.pubkey).toBe(aliceAta);
    expect(owned.value[0]?.account.data.parsed.info).toMatchObject({
      mint,
      owner: alice.address,
      state: 'initialized',
      tokenAmount: { amount: '10000000000', decimals: 6 },
    });
    const dave = await solanaSigner(buyer(devnet.manifest, 'dave').solanaSecretKey);
    expect((await rpc.getBalance(dave.address).send()).value).toBe(0n);
    expect(
      (
        await rpc
          .getTokenAccountsByOwner(dave.address, { programId: TOKEN_PROGRAM_ADDRESS }, { encoding: 'base64' })
          .send()
      ).value,
    ).toEqual([]);

    const recipient = await generateKeyPairSigner();
    const [recipientAta] = await findAssociatedTokenPda({
      owner: recipient.address,
      mint,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const amount = 1_250_000n;
    const { value: latest } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayerSigner(alice, draft),
      (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
      (draft) =>
        appendTransactionMessageInstructions(
          [
            getCreateAssociatedTokenIdempotentInstruction({
              payer: alice,
              ata: recipientAta,
              owner: recipient.address,
              mint,
            }),
            getTransferCheckedInstruction({
              source: aliceAta,
              mint,
              destination: recipientAta,
              authority: alice,
              amount,
              decimals: 6,
            }),
          ],
          draft,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
    await waitForConfirmation(rpc, signature);

    expect((await rpc.getTokenAccountBalance(aliceAta).send()).value.amount).toBe(
      (10_000_000_000n - amount).toString(),
    );
    expect((await rpc.getTokenAccountBalance(recipientAta).send()).value.amount).toBe(amount.toString());
    const landed = await rpc
      .getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' })
      .send();
    expect(landed?.meta?.err).toBeNull();
    expect(landed?.meta?.fee).toBe(5000n);
    expect(landed?.transaction.message.recentBlockhash).toBe(latest.blockhash);
    const balanceOf = (
      balances: readonly { owner?: string; uiTokenAmount: { amount: string } }[] | undefined,
      owner: string,
    ) => balances?.find((entry) => entry.owner === owner)?.uiTokenAmount.amount;
    expect(balanceOf(landed?.meta?.preTokenBalances, alice.address)).toBe('10000000000');
    expect(balanceOf(landed?.meta?.postTokenBalances, alice.address)).toBe((10_000_000_000n - amount).toString());
    expect(balanceOf(landed?.meta?.preTokenBalances, recipient.address)).toBeUndefined();
    expect(balanceOf(landed?.meta?.postTokenBalances, recipient.address)).toBe(amount.toString());
    before.solanaTransfer = { signature, recipientAta, amount };
  });

  it('rejects a Solana transaction whose blockhash the node does not know', async () => {
    const rpc = createSolanaRpc(devnet.manifest.solana.rpcUrl);
    const alice = await solanaSigner(buyer(devnet.manifest, 'alice').solanaSecretKey);
    const mint = devnet.manifest.solana.tokens[0]?.address as Address;
    const [aliceAta] = await findAssociatedTokenPda({
      owner: alice.address,
      mint,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayerSigner(alice, draft),
      (draft) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: '11111111111111111111111111111111' as Blockhash, lastValidBlockHeight: 0n },
          draft,
        ),
      (draft) =>
        appendTransactionMessageInstructions(
          [
            getTransferCheckedInstruction({
              source: aliceAta,
              mint,
              destination: aliceAta,
              authority: alice,
              amount: 1n,
              decimals: 6,
            }),
          ],
          draft,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const error = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' })
      .send()
      .catch((caught: unknown) => caught);
    expect(isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
    expect(isSolanaError((error as Error).cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)).toBe(true);
  });
});

describe('restart with the same data dir', () => {
  let ports: number[] = [];

  it('stops without leaving anvil processes and frees the ports', async () => {
    before.manifest = devnet.manifest;
    ports = [
      ...devnet.manifest.evm.map((chain) => Number(new URL(chain.rpcUrl).port)),
      Number(new URL(devnet.manifest.solana.rpcUrl).port),
    ];
    expect(anvilProcessesFor(dataDir)).toHaveLength(2);
    // As a data dir from before the x402 proxy was placed: the restart must place it.
    for (const chain of devnet.manifest.evm)
      await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).setCode({
        address: X402_PROXY,
        bytecode: '0x',
      });
    await devnet.stop();
    expect(anvilProcessesFor(dataDir)).toEqual([]);
    for (const port of ports) expect(await portIsFree(port), `port ${port}`).toBe(true);
    await devnet.stop();
  });

  it('comes back with the same addresses, balances and past transfers, faster', async () => {
    const started = performance.now();
    devnet = await startDevnet({ dataDir });
    const warmStartMs = performance.now() - started;
    console.log(`devnet warm start: ${Math.round(warmStartMs)} ms (cold start was ${Math.round(coldStartMs)} ms)`);
    const previous = before.manifest;
    if (!previous || !before.usdcTransfer || !before.solanaTransfer)
      throw new Error('the cold-start tests did not run');

    const withoutUrls = (manifest: DevnetManifest) => ({
      ...manifest,
      evm: manifest.evm.map((chain) => ({ ...chain, rpcUrl: '' })),
      solana: { ...manifest.solana, rpcUrl: '' },
    });
    expect(withoutUrls(devnet.manifest)).toEqual(withoutUrls(previous));
    // With no ports requested, the previous ones are reused while they are free.
    expect([
      ...devnet.manifest.evm.map((chain) => Number(new URL(chain.rpcUrl).port)),
      Number(new URL(devnet.manifest.solana.rpcUrl).port),
    ]).toEqual(ports);

    const [chain] = devnet.manifest.evm;
    if (!chain) throw new Error('no chain');
    const usdc = token(chain, 'USDC');
    expect(await tokenBalance(chain, usdc, before.usdcTransfer.recipient)).toBe(
      10_000n * USDC + before.usdcTransfer.amount,
    );
    expect(await tokenBalance(chain, usdc, buyer(devnet.manifest, 'alice').evmAddress)).toBe(
      10_000n * USDC - before.usdcTransfer.amount,
    );

    const rpc = createSolanaRpc(devnet.manifest.solana.rpcUrl);
    expect((await rpc.getTokenAccountBalance(before.solanaTransfer.recipientAta).send()).value.amount).toBe(
      before.solanaTransfer.amount.toString(),
    );
    const {
      value: [status],
    } = await rpc.getSignatureStatuses([before.solanaTransfer.signature]).send();
    expect(status?.err).toBeNull();
    const landed = await rpc
      .getTransaction(before.solanaTransfer.signature, {
        commitment: 'confirmed',
        maxSupportedTransactionVersion: 0,
        encoding: 'json',
      })
      .send();
    expect(landed?.meta?.err).toBeNull();

    for (const evmChain of devnet.manifest.evm)
      expect(await evmClients(evmChain, generatePrivateKey()).reader.getCode({ address: X402_PROXY })).toBe(
        proxyArtifact.deployedBytecode,
      );

    // The chains keep running: new blocks and slots after the restart.
    const { reader } = evmClients(chain, generatePrivateKey());
    const height = await reader.getBlockNumber();
    const slot = await rpc.getSlot().send();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await reader.getBlockNumber()).toBeGreaterThan(height);
    expect(await rpc.getSlot().send()).toBeGreaterThan(slot);
  });
});

describe('a data dir from before USDS and WETH', () => {
  it('gets them deployed and its buyers credited on resume, its other contracts and balances unchanged', async () => {
    const previous = devnet.manifest;
    const alice = buyer(previous, 'alice').evmAddress;
    const aliceUsdc = await tokenBalance(previous.evm[0]!, token(previous.evm[0]!, 'USDC'), alice);
    await devnet.stop();
    const manifestPath = join(dataDir, 'manifest.json');
    const older = JSON.parse(readFileSync(manifestPath, 'utf8')) as DevnetManifest;
    for (const chain of older.evm)
      chain.tokens = chain.tokens.filter((entry) => entry.symbol !== 'USDS' && entry.symbol !== 'WETH');
    writeFileSync(manifestPath, JSON.stringify(older));

    devnet = await startDevnet({ dataDir });
    for (const [index, chain] of devnet.manifest.evm.entries()) {
      const before = previous.evm[index]!;
      expect(chain.tokens.map((entry) => entry.symbol)).toEqual(['USDC', 'EURC', 'USDT', 'USDS', 'WETH']);
      for (const symbol of ['USDC', 'EURC', 'USDT']) expect(token(chain, symbol)).toBe(token(before, symbol));
      expect(token(chain, 'USDS')).not.toBe(token(before, 'USDS'));
      expect(await tokenBalance(chain, token(chain, 'USDS'), alice)).toBe(10_000n * 10n ** 18n);
      expect(await tokenBalance(chain, token(chain, 'WETH'), alice)).toBe(10n * 10n ** 18n);
      expect(
        await evmClients(chain, generatePrivateKey()).reader.readContract({
          address: token(chain, 'WETH'),
          abi: erc20Abi,
          functionName: 'allowance',
          args: [alice as EvmAddress, chain.permit2 as EvmAddress],
        }),
      ).toBe(maxUint256);
    }
    expect(await tokenBalance(devnet.manifest.evm[0]!, token(devnet.manifest.evm[0]!, 'USDC'), alice)).toBe(aliceUsdc);
  });
});

describe('a failed start', () => {
  it('stops the chains it already started', async () => {
    const failingDir = mkdtempSync(join(tmpdir(), 'paygate-devnet-failing-'));
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const takenPort = (blocker.address() as { port: number }).port;
    try {
      await expect(startDevnet({ dataDir: failingDir, ports: { solana: takenPort } })).rejects.toThrow(/EADDRINUSE/);
      expect(anvilProcessesFor(failingDir)).toEqual([]);
    } finally {
      blocker.close();
      rmSync(failingDir, { recursive: true, force: true });
    }
  });
});
