import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CompiledArtifact } from './artifacts.ts';
import { artifactsDir } from './artifacts.ts';

const require = createRequire(import.meta.url);

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
      }
    >
  >;
}

interface Solc {
  version(): string;
  compile(input: string, callbacks?: { import: (path: string) => { contents: string } | { error: string } }): string;
}

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const permit2Root = join(dirname(require.resolve('@uniswap/v4-periphery/package.json')), 'lib', 'permit2');
const OPENZEPPELIN = '@openzeppelin/contracts/';
const openZeppelinRoot = dirname(require.resolve(`${OPENZEPPELIN}package.json`));

interface CompileJob {
  contractName: string;
  entry: string;
  sourceRoot: string;
  /**
   * The solc-js package: `solc` is 0.8.17, which Permit2's sources pin; OpenZeppelin's contracts 5 need 0.8.24 or
   * newer, so the contracts built on them use `solc-0.8.30`, installed beside it under that alias.
   */
  compiler: 'solc' | 'solc-0.8.30';
  settings: Record<string, unknown>;
}

const OWN_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'london',
  metadata: { bytecodeHash: 'none' },
};
// OpenZeppelin's contracts 5 use Cancun's MCOPY; anvil runs a newer fork.
const OPENZEPPELIN_SETTINGS = { ...OWN_SETTINGS, evmVersion: 'cancun' };

const jobs: CompileJob[] = [
  {
    contractName: 'PlainToken',
    entry: 'contracts/PlainToken.sol',
    sourceRoot: packageRoot,
    compiler: 'solc',
    settings: OWN_SETTINGS,
  },
  {
    contractName: 'x402ExactPermit2Proxy',
    entry: 'contracts/x402ExactPermit2Proxy.sol',
    sourceRoot: packageRoot,
    compiler: 'solc',
    settings: OWN_SETTINGS,
  },
  {
    contractName: 'PermitToken',
    entry: 'contracts/PermitToken.sol',
    sourceRoot: packageRoot,
    compiler: 'solc-0.8.30',
    settings: OPENZEPPELIN_SETTINGS,
  },
  {
    contractName: 'WrappedEther',
    entry: 'contracts/WrappedEther.sol',
    sourceRoot: packageRoot,
    compiler: 'solc-0.8.30',
    settings: OPENZEPPELIN_SETTINGS,
  },
  {
    // Permit2's own foundry.toml settings, so the bytecode is the one deployed on public chains.
    contractName: 'Permit2',
    entry: 'src/Permit2.sol',
    sourceRoot: permit2Root,
    compiler: 'solc',
    settings: {
      viaIR: true,
      optimizer: { enabled: true, runs: 1_000_000 },
      evmVersion: 'london',
      metadata: { bytecodeHash: 'none' },
      remappings: ['solmate/=lib/solmate/'],
    },
  },
];

function compileOne(solc: Solc, job: CompileJob): CompiledArtifact {
  const input = {
    language: 'Solidity',
    sources: { [job.entry]: { content: readFileSync(join(job.sourceRoot, job.entry), 'utf8') } },
    settings: {
      ...job.settings,
      outputSelection: {
        [job.entry]: { [job.contractName]: ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  };
  const readImport = (path: string) => {
    const file = path.startsWith(OPENZEPPELIN)
      ? join(openZeppelinRoot, path.slice(OPENZEPPELIN.length))
      : join(job.sourceRoot, path);
    try {
      return { contents: readFileSync(file, 'utf8') };
    } catch {
      return { error: `not found: ${path}` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: readImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts[job.entry]?.[job.contractName];
  if (!contract) throw new Error(`solc produced no ${job.contractName}`);
  return {
    contractName: job.contractName,
    compiler: solc.version(),
    settings: job.settings,
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
  };
}

/**
 * Compiles the devnet's own contracts and Permit2 with each one's solc and writes their artifacts; with `only`, just
 * the contracts named (Permit2 alone takes about half a minute).
 */
export function compileContracts(log: (line: string) => void = console.log, only: string[] = []): void {
  mkdirSync(artifactsDir, { recursive: true });
  for (const job of jobs.filter((candidate) => only.length === 0 || only.includes(candidate.contractName))) {
    const started = performance.now();
    const artifact = compileOne(require(job.compiler) as Solc, job);
    writeFileSync(join(artifactsDir, `${job.contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`);
    log(`compiled ${job.contractName} with solc ${artifact.compiler} in ${Math.round(performance.now() - started)} ms`);
  }
}
