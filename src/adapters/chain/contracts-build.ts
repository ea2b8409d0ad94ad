import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Abi, Hex } from 'viem'

/**
 * Compiles contracts/*.sol with solc-js (the `solc` npm package: the compiler is WebAssembly
 * shipped inside the package, nothing is downloaded). `@openzeppelin/contracts/...` imports are
 * read from the installed npm package through solc's import callback. The output is cached
 * under .tmp/contracts keyed by the sources, the compiler and OpenZeppelin versions and the
 * settings, so only the first build after a change pays for compilation.
 */
export interface ContractArtifact {
  contractName: string
  abi: Abi
  bytecode: Hex
}

export type ContractName = 'CredentialRegistry' | 'SchemaRegistry' | 'ConsentRegistry'
export type Artifacts = Record<ContractName, ContractArtifact>

const ROOT = path.resolve(import.meta.dirname, '../../..')
export const CONTRACTS_DIR = path.join(ROOT, 'contracts')
const CACHE_DIR = path.join(ROOT, '.tmp', 'contracts')

/**
 * EVM target. Cancun (2024) runs on Ethereum and the major L2s; the contracts use nothing newer.
 * The optimizer favours cheap calls over cheap deployment (each contract is deployed once).
 */
export const SOLC_SETTINGS = {
  evmVersion: 'cancun',
  optimizer: { enabled: true, runs: 10_000 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const

interface SolcOutput {
  errors?: Array<{ severity: 'error' | 'warning' | 'info'; formattedMessage: string }>
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
}

/** The three registries of contracts/ (what `deployRegistries` deploys). */
export async function loadArtifacts(options: { contractsDir?: string; cacheDir?: string } = {}): Promise<Artifacts> {
  const artifacts = await compileContracts(options.contractsDir ?? CONTRACTS_DIR, options.cacheDir)
  for (const name of ['CredentialRegistry', 'SchemaRegistry', 'ConsentRegistry'] as const) {
    if (!artifacts[name]) throw new Error(`contracts/ has no contract ${name}`)
  }
  return artifacts as Artifacts
}

/** Every contract of the .sol files directly in `contractsDir` (contracts/legacy/ is compiled on its own). */
export async function compileContracts(
  contractsDir: string,
  cacheDir = CACHE_DIR,
): Promise<Record<string, ContractArtifact>> {
  const names = (await readdir(contractsDir)).filter((f) => f.endsWith('.sol')).sort()
  const sources: Record<string, { content: string }> = {}
  for (const name of names) sources[name] = { content: await readFile(path.join(contractsDir, name), 'utf8') }
  const require = createRequire(import.meta.url)
  const solcVersion: string = require('solc/package.json').version
  const openZeppelinVersion: string = require('@openzeppelin/contracts/package.json').version
  const key = createHash('sha256')
    .update(JSON.stringify({ solcVersion, openZeppelinVersion, SOLC_SETTINGS, sources }))
    .digest('hex')
    .slice(0, 32)
  const cached = path.join(cacheDir, `${key}.json`)
  if (existsSync(cached)) return JSON.parse(await readFile(cached, 'utf8')) as Record<string, ContractArtifact>

  const solc = require('solc') as {
    compile(input: string, callbacks: { import(importPath: string): { contents: string } | { error: string } }): string
  }
  // Only the OpenZeppelin package is importable: a contract cannot reach anything else on disk.
  const importFromPackage = (importPath: string): { contents: string } | { error: string } => {
    if (!importPath.startsWith('@openzeppelin/contracts/') || importPath.includes('..'))
      return { error: `import not allowed: ${importPath}` }
    try {
      return { contents: readFileSync(require.resolve(importPath), 'utf8') }
    } catch {
      return { error: `not found: ${importPath}` }
    }
  }
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SOLC_SETTINGS }), {
      import: importFromPackage,
    }),
  ) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0)
    throw new Error(`Solidity compilation failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  const artifacts: Record<string, ContractArtifact> = {}
  // Only the contracts of our own files: imported libraries are linked into them.
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    if (!(file in sources)) continue
    for (const [contractName, contract] of Object.entries(contracts)) {
      artifacts[contractName] = { contractName, abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }
    }
  }
  await mkdir(cacheDir, { recursive: true })
  // Write then rename: a concurrent reader (parallel test files) never sees half a file.
  const temp = `${cached}.${process.pid}.tmp`
  await writeFile(temp, JSON.stringify(artifacts))
  await rename(temp, cached)
  return artifacts
}
