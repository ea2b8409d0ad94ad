import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Ajv, { type ErrorObject } from 'ajv'
import type { TSchema } from '@sinclair/typebox'
import { EnvSchema, URL_FORMATS, type Env } from './config-schema.js'
import { didMethods } from './modules/did/methods/registered-methods.js'

/**
 * The only reader of process.env. Every variable is converted from text to the type its schema
 * (config-schema.ts) declares, the whole is validated once, at start, and the rules that tie
 * variables together are checked after; a bad value stops start-up with a message naming it.
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
  /** Start even though the database recorded another PUBLIC_BASE_URL, and record this one. */
  readonly acceptNewPublicBaseUrl: boolean
  /** 32 bytes; unset: generated once into dataDir (mode 0600). */
  readonly masterKey: Uint8Array | undefined
  readonly jwtTtlSeconds: number
  readonly challengeTtlSeconds: number
  /** How long an Idempotency-Key's record is kept for retries (docs/idempotency.md). */
  readonly idempotencyKeyTtlSeconds: number
  /** How long an issuer's step-up (authenticate) lasts for the session that performed it. */
  readonly stepUpTtlSeconds: number
  readonly ipfsApiUrl: string | undefined
  readonly blockchainRpcUrl: string | undefined
  readonly blockchainPrivateKey: string | undefined
  /** Addresses of the deployed registries (npm run chain:deploy prints them); set with BLOCKCHAIN_RPC_URL. */
  readonly blockchainContracts:
    | {
        credentialRegistry: `0x${string}`
        schemaRegistry: `0x${string}`
        consentRegistry: `0x${string}`
        credentialRegistryV1?: `0x${string}`
      }
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
  /** Seconds of clock difference tolerated on nbf/iat/exp of every JWT received from elsewhere (RFC 7519 §4.1.4-6). */
  readonly clockSkewSeconds: number
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
  /** The built web console (packages/console/dist) served at /app; missing: /app answers 503. */
  readonly consoleDir: string
  /**
   * DID methods a DID of which may be registered here with a key of the caller's choosing.
   * Only namespaces this service is the authority for belong here: a method that carries its
   * key (did:key, did:jwk) or resolves elsewhere (did:web, did:ethr, did:ion…) must not.
   */
  readonly registrableDidMethods: readonly string[]
  /** Fastify trustProxy: false, true, a hop count, or addresses/CIDRs of trusted proxies. */
  readonly trustProxy: boolean | number | string[]
  /** HTTPS listening: the PEM certificate chain and key read at start; unset: plain HTTP. */
  readonly tls: { cert: Buffer; key: Buffer } | undefined
}

/** Both TLS files or neither; each must be readable now, not at the first connection. */
function readTls(certFile: string | undefined, keyFile: string | undefined, problems: string[]): Config['tls'] {
  if (certFile === undefined && keyFile === undefined) return undefined
  if (certFile === undefined || keyFile === undefined) {
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE go together: set both, or neither for plain HTTP')
    return undefined
  }
  const read = (name: string, file: string): Buffer | undefined => {
    try {
      return readFileSync(file)
    } catch (error) {
      problems.push(`${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
      return undefined
    }
  }
  const cert = read('TLS_CERT_FILE', certFile)
  const key = read('TLS_KEY_FILE', keyFile)
  return cert && key ? { cert, key } : undefined
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

type EnvText = Record<string, string | undefined>
type Schema = TSchema & {
  type?: string
  minimum?: number
  maximum?: number
  items?: Schema
  anyOf?: Array<{ const: unknown }>
  'x-expected'?: string
}

/** Beside src/ (or dist/ once compiled): the console package's build output in this checkout. */
const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../packages/console/dist', import.meta.url))
/** Variables whose bounds follow another variable's value (config-schema.ts holds the widest). */
const DEPENDENT_BOUNDS = new Set(['EVIDENCE_MAX_BYTES', 'CALLBACK_LEASE_MS'])
const TRUE_WORDS = ['1', 'true', 'yes', 'on']
const FALSE_WORDS = ['0', 'false', 'no', 'off']

const ajv = new Ajv.default({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true })
ajv.addKeyword({ keyword: 'x-expected' })
for (const [format, protocols] of Object.entries(URL_FORMATS))
  ajv.addFormat(format, { type: 'string', validate: (text: string) => hasProtocol(text, protocols) })
ajv.addFormat('key-32', { type: 'string', validate: (text: string) => parseKey(text) !== undefined })
const validateEnv = ajv.compile<Env>(EnvSchema)
const PROPERTIES = EnvSchema.properties as unknown as Record<keyof Env, Schema>

export function loadConfig(env: EnvText = process.env): Config {
  const problems: string[] = []
  const text: Partial<Record<keyof Env, string>> = {}
  const values: Record<string, unknown> = {}
  for (const name of Object.keys(PROPERTIES) as Array<keyof Env>) {
    const raw = env[name]?.trim()
    if (raw === undefined || raw === '') continue
    text[name] = raw
    values[name] = fromText(PROPERTIES[name], raw)
  }
  // A bad variable is reported, then stands at its default so the checks below see a whole configuration.
  const refused = new Set<string>()
  if (!validateEnv(values)) {
    for (const [name, message] of describeErrors(validateEnv.errors ?? [], text)) {
      refused.add(name)
      values[name] = PROPERTIES[name as keyof Env].default
      // A bound that follows another variable is reported with it, below.
      if (!DEPENDENT_BOUNDS.has(name)) problems.push(message)
    }
  }
  const e = values as Env
  const given = (name: keyof Env): boolean => text[name] !== undefined
  const withinBounds = (name: keyof Env, value: number, min: number, max: number): void => {
    if (given(name) && (refused.has(name) || value < min || value > max))
      problems.push(wholeNumberProblem(name, min, max, text[name]))
  }

  const blockchainRpcUrl = e.BLOCKCHAIN_RPC_URL
  const registries = {
    credentialRegistry: 'BLOCKCHAIN_CREDENTIAL_REGISTRY',
    schemaRegistry: 'BLOCKCHAIN_SCHEMA_REGISTRY',
    consentRegistry: 'BLOCKCHAIN_CONSENT_REGISTRY',
  } as const
  if (blockchainRpcUrl !== undefined) {
    for (const name of Object.values(registries)) {
      if (!given(name)) problems.push(`${name} is required with BLOCKCHAIN_RPC_URL (npm run chain:deploy prints it)`)
    }
    if (!given('BLOCKCHAIN_PRIVATE_KEY')) problems.push('BLOCKCHAIN_PRIVATE_KEY is required with BLOCKCHAIN_RPC_URL')
  }
  const [credentialRegistry, schemaRegistry, consentRegistry] = Object.values(registries).map(
    (name) => e[name] as `0x${string}` | undefined,
  )
  const blockchainContracts =
    blockchainRpcUrl !== undefined && credentialRegistry && schemaRegistry && consentRegistry
      ? {
          credentialRegistry,
          schemaRegistry,
          consentRegistry,
          ...(e.BLOCKCHAIN_CREDENTIAL_REGISTRY_V1
            ? { credentialRegistryV1: e.BLOCKCHAIN_CREDENTIAL_REGISTRY_V1 as `0x${string}` }
            : {}),
        }
      : undefined
  if (e.DATABASE_URL !== undefined && !given('MASTER_KEY')) {
    // Each instance would generate its own key and could not open keys sealed by the others.
    problems.push('MASTER_KEY is required with DATABASE_URL: every instance on one database must share it')
  }
  for (const method of e.REGISTRABLE_DID_METHODS) {
    if (didMethods.carriesOrResolvesOwnKeys(method))
      problems.push(
        `REGISTRABLE_DID_METHODS: did:${method} DIDs carry or resolve their own keys and cannot be registered`,
      )
  }
  // Evidence is stored sealed (JSON, base64url): about 4/3 of the file, within the content store's limit.
  const evidenceRoom = Math.max(1024, Math.floor(((e.CONTENT_MAX_BYTES - 4096) * 3) / 4))
  const evidenceMaxBytes = e.EVIDENCE_MAX_BYTES ?? Math.min(10 * 1024 * 1024, evidenceRoom)
  withinBounds('EVIDENCE_MAX_BYTES', evidenceMaxBytes, 1024, evidenceRoom)
  // Longer than one POST may take (OUTBOUND_TIMEOUT_MS), or a slow send would be claimed twice.
  const callbackLeaseMs = e.CALLBACK_LEASE_MS ?? Math.max(60_000, 4 * e.OUTBOUND_TIMEOUT_MS)
  withinBounds('CALLBACK_LEASE_MS', callbackLeaseMs, e.OUTBOUND_TIMEOUT_MS + 1000, 3600_000)
  // Node refuses a headers timeout longer than the whole request's.
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS)
    problems.push('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS')
  const tls = readTls(e.TLS_CERT_FILE, e.TLS_KEY_FILE, problems)
  if (problems.length > 0) throw new ConfigError(problems)

  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePreparedStatements: !e.DATABASE_UNNAMED_STATEMENTS,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `${tls ? 'https' : 'http'}://${e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    masterKey: e.MASTER_KEY === undefined ? undefined : parseKey(e.MASTER_KEY),
    jwtTtlSeconds: e.JWT_TTL_SECONDS,
    challengeTtlSeconds: e.CHALLENGE_TTL_SECONDS,
    idempotencyKeyTtlSeconds: e.IDEMPOTENCY_KEY_TTL_SECONDS,
    stepUpTtlSeconds: e.STEP_UP_TTL_SECONDS,
    ipfsApiUrl: e.IPFS_API_URL,
    blockchainRpcUrl,
    blockchainPrivateKey: e.BLOCKCHAIN_PRIVATE_KEY,
    blockchainContracts,
    blockchainBatchSize: e.BLOCKCHAIN_BATCH_SIZE,
    blockchainBatchWaitMs: e.BLOCKCHAIN_BATCH_WAIT_MS,
    blockchainPollMs: e.BLOCKCHAIN_POLL_MS,
    blockchainLeaseMs: e.BLOCKCHAIN_LEASE_MS,
    adminApiKey: e.ADMIN_API_KEY,
    callbackAllowPrivate: e.CALLBACK_ALLOW_PRIVATE,
    callbackPollMs: e.CALLBACK_POLL_MS,
    callbackMaxAttempts: e.CALLBACK_MAX_ATTEMPTS,
    callbackLeaseMs,
    outboundAllowPrivate: e.OUTBOUND_ALLOW_PRIVATE,
    didWebAllowHttp: e.DID_WEB_ALLOW_HTTP,
    acceptNewPublicBaseUrl: e.ACCEPT_NEW_PUBLIC_BASE_URL,
    outboundTimeoutMs: e.OUTBOUND_TIMEOUT_MS,
    clockSkewSeconds: e.CLOCK_SKEW_SECONDS,
    rateLimitAuthPerMinute: e.RATE_LIMIT_AUTH_PER_MINUTE,
    rateLimitResolvePerMinute: e.RATE_LIMIT_RESOLVE_PER_MINUTE,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    smallBodyLimitBytes: e.SMALL_BODY_LIMIT_BYTES,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    bodyRateWindowMs: e.BODY_RATE_WINDOW_MS,
    bodyMinBytesPerSecond: e.BODY_MIN_BYTES_PER_SECOND,
    contentMaxBytes: e.CONTENT_MAX_BYTES,
    avatarMaxBytes: e.AVATAR_MAX_BYTES,
    evidenceMaxBytes,
    evidenceAllowedTypes: e.EVIDENCE_ALLOWED_TYPES.map((type) => type.toLowerCase()),
    walletShareMaxTtlSeconds: e.WALLET_SHARE_MAX_TTL_SECONDS,
    walletStatusRefreshMs: e.WALLET_STATUS_REFRESH_MS,
    pgliteMaintenanceMs: e.PGLITE_MAINTENANCE_MS,
    bbsWorkers: e.BBS_WORKERS,
    logLevel: e.LOG_LEVEL,
    corsOrigins: e.CORS_ORIGINS,
    consoleDir: e.CONSOLE_DIR === undefined ? DEFAULT_CONSOLE_DIR : path.resolve(e.CONSOLE_DIR),
    registrableDidMethods: e.REGISTRABLE_DID_METHODS,
    trustProxy: trustProxy(e.TRUST_PROXY),
    tls,
  })
}

/**
 * A variable's text as the type its schema declares. Text that is not of that type is left as
 * it is, so validation refuses it and the message can quote it.
 */
function fromText(schema: Schema, raw: string): unknown {
  if (schema.type === 'integer') return /^\d+$/.test(raw) ? Number(raw) : raw
  if (schema.type === 'boolean') {
    const word = raw.toLowerCase()
    return TRUE_WORDS.includes(word) ? true : FALSE_WORDS.includes(word) ? false : raw
  }
  if (schema.type === 'array')
    return raw
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)
  return raw
}

/**
 * One message per bad variable, and per bad item of a list, with the variable it names. Only
 * numbers, flags and list items are quoted: other values may be secrets.
 */
function describeErrors(errors: ErrorObject[], text: Partial<Record<string, string>>): Array<[string, string]> {
  const messages = new Map<string, [string, string]>()
  for (const error of errors) {
    const [name = '', index] = error.instancePath.split('/').slice(1)
    const schema = PROPERTIES[name as keyof Env]
    // A list's item is reported under its own path; a variable once, whatever its schema said.
    const at = index === undefined ? name : error.instancePath
    if (!schema || messages.has(at)) continue
    if (index === undefined) {
      messages.set(at, [name, describe(name, schema, text[name])])
    } else {
      const item = (fromText(schema, text[name] ?? '') as string[])[Number(index)]
      messages.set(at, [name, `${name}: "${item}" is not ${schema.items?.['x-expected'] ?? 'valid'}`])
    }
  }
  return [...messages.values()]
}

function describe(name: string, schema: Schema, raw: string | undefined): string {
  if (schema.type === 'integer')
    return wholeNumberProblem(name, schema.minimum ?? 0, schema.maximum ?? Number.MAX_SAFE_INTEGER, raw)
  if (schema.type === 'boolean') return `${name} must be true or false (got "${raw?.toLowerCase()}")`
  if (schema.anyOf) return `${name} must be one of ${schema.anyOf.map((option) => String(option.const)).join(', ')}`
  return `${name} must be ${schema['x-expected'] ?? 'valid'}`
}

function wholeNumberProblem(name: string, min: number, max: number, raw: string | undefined): string {
  return `${name} must be a whole number from ${min} to ${max} (got "${raw}")`
}

function hasProtocol(text: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(text).protocol)
  } catch {
    return false
  }
}

function trustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined) return false
  if (/^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true'
  if (/^\d+$/.test(raw)) return Number(raw)
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
}

function parseKey(raw: string): Uint8Array | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex')
  const bytes = Buffer.from(raw, 'base64')
  return bytes.length === 32 ? bytes : undefined
}
