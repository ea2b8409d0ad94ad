import os from 'node:os'
import path from 'node:path'

/**
 * The only reader of process.env. Every setting is parsed and checked here once, at start;
 * a bad value stops start-up with a message naming the variable.
 */
export interface Config {
  readonly port: number
  readonly host: string
  readonly dataDir: string
  /** Unset: embedded PGlite under dataDir. */
  readonly databaseUrl: string | undefined
  /** PostgreSQL: run statements as named prepared statements (off behind poolers that cannot hold them). */
  readonly databasePreparedStatements: boolean
  readonly publicBaseUrl: string
  /** 32 bytes; unset: generated once into dataDir (mode 0600). */
  readonly masterKey: Uint8Array | undefined
  readonly jwtTtlSeconds: number
  readonly challengeTtlSeconds: number
  /** How long an issuer's step-up (authenticate) lasts for the session that performed it. */
  readonly stepUpTtlSeconds: number
  readonly ipfsApiUrl: string | undefined
  readonly blockchainRpcUrl: string | undefined
  readonly blockchainPrivateKey: string | undefined
  /** Addresses of the deployed registries (npm run chain:deploy prints them); set with BLOCKCHAIN_RPC_URL. */
  readonly blockchainContracts:
    | { credentialRegistry: `0x${string}`; schemaRegistry: `0x${string}`; consentRegistry: `0x${string}`; credentialRegistryV1?: `0x${string}` }
    | undefined
  /** Most credential hashes anchored by one Merkle-root transaction. */
  readonly blockchainBatchSize: number
  /** How long the first queued hash waits for the batch to fill before it is anchored anyway. */
  readonly blockchainBatchWaitMs: number
  /** How often the chain dispatcher looks for due work and pending receipts when idle; also the first retry delay. */
  readonly blockchainPollMs: number
  /** How long a claimed chain job stays claimed: after a crash, its resend waits this long. */
  readonly blockchainLeaseMs: number
  /** Unset: the admin group answers 404. */
  readonly adminApiKey: string | undefined
  readonly callbackAllowPrivate: boolean
  /** How often the callback dispatcher looks for due events when idle (it is also nudged after each commit). */
  readonly callbackPollMs: number
  /** Attempts before a callback event is given up (dead). */
  readonly callbackMaxAttempts: number
  /** How long a claimed callback stays claimed: after a crash, its redelivery waits this long. */
  readonly callbackLeaseMs: number
  /** did:web and other outgoing fetches may reach private/loopback addresses. */
  readonly outboundAllowPrivate: boolean
  /** did:web over plain HTTP (tests, local development only). */
  readonly didWebAllowHttp: boolean
  readonly outboundTimeoutMs: number
  readonly rateLimitAuthPerMinute: number
  readonly rateLimitResolvePerMinute: number
  readonly bodyLimitBytes: number
  /** Body limit of public, admin and small control routes (src/plugins/body-limits.ts). */
  readonly smallBodyLimitBytes: number
  /** Longest time to receive a whole request, headers and body (Node's server.requestTimeout). */
  readonly requestTimeoutMs: number
  /** Longest time to receive a request's headers (Node's server.headersTimeout). */
  readonly headersTimeoutMs: number
  /** A request body must deliver bodyMinBytesPerSecond × this much in every window this long (src/plugins/request-timeouts.ts). */
  readonly bodyRateWindowMs: number
  readonly bodyMinBytesPerSecond: number
  readonly contentMaxBytes: number
  readonly avatarMaxBytes: number
  /** Largest evidence file a holder may upload (wallet evidence upload). */
  readonly evidenceMaxBytes: number
  /** Media types accepted as evidence. */
  readonly evidenceAllowedTypes: readonly string[]
  /** Longest lifetime of a wallet share link. */
  readonly walletShareMaxTtlSeconds: number
  /** How old an imported credential's status reading may get before its list is read again; 0: never read again. */
  readonly walletStatusRefreshMs: number
  /** Embedded database: how often tables past autovacuum's thresholds are vacuumed, analyzed and frozen (src/db/pglite-maintenance.ts); 0: never. */
  readonly pgliteMaintenanceMs: number
  /** Worker threads for BBS signing and proofs (WASM, ~100 MB each). */
  readonly bbsWorkers: number
  readonly logLevel: string
  readonly corsOrigins: readonly string[]
  /**
   * DID methods a DID of which may be registered here with a key of the caller's choosing.
   * Only namespaces this service is the authority for belong here: a method that carries its
   * key (did:key, did:jwk) or resolves elsewhere (did:web, did:ethr, did:ion…) must not.
   */
  readonly registrableDidMethods: readonly string[]
  /** Fastify trustProxy: false, true, a hop count, or addresses/CIDRs of trusted proxies. */
  readonly trustProxy: boolean | number | string[]
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

const SELF_CERTIFYING_OR_RESOLVED = ['key', 'jwk', 'web', 'peer', 'pkh', 'ethr', 'ion', 'plc', 'webvh', 'cheqd', 'sov', 'indy']

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = []
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim()
    return value === '' ? undefined : value
  }
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name)
    if (raw === undefined) return fallback
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`)
      return fallback
    }
    return Number(raw)
  }
  const bool = (name: string): boolean => {
    const raw = read(name)?.toLowerCase()
    if (raw === undefined) return false
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true
    if (['0', 'false', 'no', 'off'].includes(raw)) return false
    problems.push(`${name} must be true or false (got "${raw}")`)
    return false
  }
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = read(name)
    if (raw === undefined) return undefined
    try {
      const parsed = new URL(raw)
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol')
      return raw
    } catch {
      problems.push(`${name} must be a ${protocols.join(' or ')} URL`)
      return undefined
    }
  }

  const port = int('PORT', 3000, 0, 65535)
  const host = read('HOST') ?? '127.0.0.1'
  const dataDir = path.resolve(read('DATA_DIR') ?? './data')
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:'])
  const publicBaseUrl = (url('PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host}:${port}`).replace(/\/+$/, '')

  let masterKey: Uint8Array | undefined
  const rawMaster = read('MASTER_KEY')
  if (rawMaster !== undefined) {
    masterKey = parseKey(rawMaster)
    if (!masterKey) problems.push('MASTER_KEY must be 32 bytes as 64 hex characters or base64')
  }

  const blockchainPrivateKey = read('BLOCKCHAIN_PRIVATE_KEY')
  if (blockchainPrivateKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(blockchainPrivateKey)) {
    problems.push('BLOCKCHAIN_PRIVATE_KEY must be 0x followed by 64 hex characters')
  }
  const blockchainRpcUrl = url('BLOCKCHAIN_RPC_URL', ['http:', 'https:', 'ws:', 'wss:'])
  const address = (name: string): `0x${string}` | undefined => {
    const raw = read(name)
    if (raw !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(raw)) problems.push(`${name} must be 0x followed by 40 hex characters`)
    else if (raw === undefined && blockchainRpcUrl !== undefined) problems.push(`${name} is required with BLOCKCHAIN_RPC_URL (npm run chain:deploy prints it)`)
    return raw as `0x${string}` | undefined
  }
  const contractAddresses = {
    credentialRegistry: address('BLOCKCHAIN_CREDENTIAL_REGISTRY'),
    schemaRegistry: address('BLOCKCHAIN_SCHEMA_REGISTRY'),
    consentRegistry: address('BLOCKCHAIN_CONSENT_REGISTRY'),
  }
  // Optional: the registry holding batches anchored before the OpenZeppelin tree (docs/blockchain.md "Upgrading a deployment").
  const credentialRegistryV1 = read('BLOCKCHAIN_CREDENTIAL_REGISTRY_V1')
  if (credentialRegistryV1 !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(credentialRegistryV1)) problems.push('BLOCKCHAIN_CREDENTIAL_REGISTRY_V1 must be 0x followed by 40 hex characters')
  if (blockchainRpcUrl !== undefined && blockchainPrivateKey === undefined) problems.push('BLOCKCHAIN_PRIVATE_KEY is required with BLOCKCHAIN_RPC_URL')
  const blockchainContracts =
    blockchainRpcUrl !== undefined && contractAddresses.credentialRegistry && contractAddresses.schemaRegistry && contractAddresses.consentRegistry
      ? {
          credentialRegistry: contractAddresses.credentialRegistry,
          schemaRegistry: contractAddresses.schemaRegistry,
          consentRegistry: contractAddresses.consentRegistry,
          ...(credentialRegistryV1 !== undefined ? { credentialRegistryV1: credentialRegistryV1 as `0x${string}` } : {}),
        }
      : undefined
  const adminApiKey = read('ADMIN_API_KEY')
  if (adminApiKey !== undefined && adminApiKey.length < 16) {
    problems.push('ADMIN_API_KEY must be at least 16 characters')
  }
  if (databaseUrl !== undefined && rawMaster === undefined) {
    // Each instance would generate its own key and could not open keys sealed by the others.
    problems.push('MASTER_KEY is required with DATABASE_URL: every instance on one database must share it')
  }
  const registrableDidMethods = (read('REGISTRABLE_DID_METHODS') ?? 'example').split(',').map((m) => m.trim()).filter(Boolean)
  for (const method of registrableDidMethods) {
    if (!/^[a-z0-9]+$/.test(method)) problems.push(`REGISTRABLE_DID_METHODS: "${method}" is not a DID method name`)
    else if (SELF_CERTIFYING_OR_RESOLVED.includes(method)) problems.push(`REGISTRABLE_DID_METHODS: did:${method} DIDs carry or resolve their own keys and cannot be registered`)
  }
  const rawTrustProxy = read('TRUST_PROXY')
  let trustProxy: Config['trustProxy'] = false
  if (rawTrustProxy !== undefined) {
    if (/^(true|false)$/i.test(rawTrustProxy)) trustProxy = rawTrustProxy.toLowerCase() === 'true'
    else if (/^\d+$/.test(rawTrustProxy)) trustProxy = Number(rawTrustProxy)
    else trustProxy = rawTrustProxy.split(',').map((s) => s.trim()).filter(Boolean)
  }
  const outboundTimeoutMs = int('OUTBOUND_TIMEOUT_MS', 5000, 100, 60000)
  const contentMax = int('CONTENT_MAX_BYTES', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024)
  // Evidence is stored sealed (JSON, base64url): about 4/3 of the file, within the content store's limit.
  const evidenceRoom = Math.max(1024, Math.floor(((contentMax - 4096) * 3) / 4))
  const evidenceMaxBytes = read('EVIDENCE_MAX_BYTES') === undefined ? Math.min(10 * 1024 * 1024, evidenceRoom) : int('EVIDENCE_MAX_BYTES', 0, 1024, evidenceRoom)
  const evidenceAllowedTypes = (read('EVIDENCE_ALLOWED_TYPES') ?? 'application/pdf,image/png,image/jpeg,image/gif,image/webp,text/plain,application/json')
    .split(',').map((t) => t.trim().toLowerCase()).filter(Boolean)
  for (const type of evidenceAllowedTypes) {
    if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) problems.push(`EVIDENCE_ALLOWED_TYPES: "${type}" is not a media type (type/subtype)`)
  }
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS', 15 * 60_000, 1000, 24 * 3600_000)
  const headersTimeoutMs = int('HEADERS_TIMEOUT_MS', 20_000, 1000, 600_000)
  // Node refuses a headers timeout longer than the whole request's.
  if (headersTimeoutMs > requestTimeoutMs) problems.push('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS')
  const logLevel = read('LOG_LEVEL') ?? 'info'
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)

  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    databasePreparedStatements: !bool('DATABASE_UNNAMED_STATEMENTS'),
    publicBaseUrl,
    masterKey,
    jwtTtlSeconds: int('JWT_TTL_SECONDS', 3600, 60, 30 * 86400),
    challengeTtlSeconds: int('CHALLENGE_TTL_SECONDS', 300, 10, 3600),
    stepUpTtlSeconds: int('STEP_UP_TTL_SECONDS', 900, 10, 86400),
    ipfsApiUrl: url('IPFS_API_URL', ['http:', 'https:']),
    blockchainRpcUrl,
    blockchainPrivateKey,
    blockchainContracts,
    blockchainBatchSize: int('BLOCKCHAIN_BATCH_SIZE', 1000, 1, 10_000),
    blockchainBatchWaitMs: int('BLOCKCHAIN_BATCH_WAIT_MS', 30_000, 0, 3600_000),
    blockchainPollMs: int('BLOCKCHAIN_POLL_MS', 2000, 10, 60_000),
    blockchainLeaseMs: int('BLOCKCHAIN_LEASE_MS', 5 * 60_000, 5_000, 3600_000),
    adminApiKey,
    callbackAllowPrivate: bool('CALLBACK_ALLOW_PRIVATE'),
    callbackPollMs: int('CALLBACK_POLL_MS', 1000, 10, 60_000),
    callbackMaxAttempts: int('CALLBACK_MAX_ATTEMPTS', 12, 1, 100),
    // Longer than one POST may take (OUTBOUND_TIMEOUT_MS), or a slow send would be claimed twice.
    callbackLeaseMs: int('CALLBACK_LEASE_MS', Math.max(60_000, 4 * outboundTimeoutMs), outboundTimeoutMs + 1000, 3600_000),
    outboundAllowPrivate: bool('OUTBOUND_ALLOW_PRIVATE'),
    didWebAllowHttp: bool('DID_WEB_ALLOW_HTTP'),
    outboundTimeoutMs,
    rateLimitAuthPerMinute: int('RATE_LIMIT_AUTH_PER_MINUTE', 120, 1, 10_000_000),
    rateLimitResolvePerMinute: int('RATE_LIMIT_RESOLVE_PER_MINUTE', 600, 1, 10_000_000),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    smallBodyLimitBytes: int('SMALL_BODY_LIMIT_BYTES', 64 * 1024, 1024, 64 * 1024 * 1024),
    requestTimeoutMs,
    headersTimeoutMs,
    bodyRateWindowMs: int('BODY_RATE_WINDOW_MS', 10_000, 100, 600_000),
    bodyMinBytesPerSecond: int('BODY_MIN_BYTES_PER_SECOND', 500, 1, 100 * 1024 * 1024),
    contentMaxBytes: contentMax,
    avatarMaxBytes: int('AVATAR_MAX_BYTES', 2 * 1024 * 1024, 1024, 16 * 1024 * 1024),
    evidenceMaxBytes,
    evidenceAllowedTypes,
    walletShareMaxTtlSeconds: int('WALLET_SHARE_MAX_TTL_SECONDS', 7 * 86400, 60, 365 * 86400),
    walletStatusRefreshMs: int('WALLET_STATUS_REFRESH_MS', 15 * 60_000, 0, 30 * 86400_000),
    pgliteMaintenanceMs: int('PGLITE_MAINTENANCE_MS', 60_000, 0, 3600_000),
    bbsWorkers: int('BBS_WORKERS', Math.max(1, os.availableParallelism()), 1, 64),
    logLevel,
    corsOrigins: (read('CORS_ORIGINS') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    registrableDidMethods,
    trustProxy,
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return Object.freeze(config)
}

function parseKey(raw: string): Uint8Array | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex')
  const bytes = Buffer.from(raw, 'base64')
  return bytes.length === 32 ? bytes : undefined
}
