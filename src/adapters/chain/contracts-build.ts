import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Abi, Hex } from 'viem'

/**
 * Compiles contracts/*.sol with solc-js (the `solc` npm package: the compiler is WebAssembly
 * shipped inside the package, nothing is downloaded). The output is cached under .tmp/contracts
 * keyed by the sources, the compiler version and the settings, so only the first build after a
 * change pays the ~2-5 s of compilation.
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

export async function loadArtifacts(options: { contractsDir?: string; cacheDir?: string } = {}): Promise<Artifacts> {
  const contractsDir = options.contractsDir ?? CONTRACTS_DIR
  const cacheDir = options.cacheDir ?? CACHE_DIR
  const names = (await readdir(contractsDir)).filter((f) => f.endsWith('.sol')).sort()
  const sources: Record<string, { content: string }> = {}
  for (const name of names) sources[name] = { content: await readFile(path.join(contractsDir, name), 'utf8') }
  const require = createRequire(import.meta.url)
  const solcVersion: string = require('solc/package.json').version
  const key = createHash('sha256').update(JSON.stringify({ solcVersion, SOLC_SETTINGS, sources })).digest('hex').slice(0, 32)
  const cached = path.join(cacheDir, `${key}.json`)
  if (existsSync(cached)) return JSON.parse(await readFile(cached, 'utf8')) as Artifacts

  const solc = require('solc') as { compile(input: string): string }
  const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SOLC_SETTINGS }))) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`Solidity compilation failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  const artifacts = {} as Artifacts
  for (const file of Object.values(output.contracts ?? {})) {
    for (const [contractName, contract] of Object.entries(file)) {
      artifacts[contractName as ContractName] = { contractName, abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }
    }
  }
  for (const name of ['CredentialRegistry', 'SchemaRegistry', 'ConsentRegistry'] as const) {
    if (!artifacts[name]) throw new Error(`contracts/ has no contract ${name}`)
  }
  await mkdir(cacheDir, { recursive: true })
  // Write then rename: a concurrent reader (parallel test files) never sees half a file.
  const temp = `${cached}.${process.pid}.tmp`
  await writeFile(temp, JSON.stringify(artifacts))
  await rename(temp, cached)
  return artifacts
}
