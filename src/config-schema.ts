/**
 * The environment the service reads, as one TypeBox schema: each variable's type, default,
 * bounds and meaning. src/config.ts turns the text of each variable into its type, validates the
 * whole once, and maps it onto Config. `x-expected` phrases what a string must be, for the
 * start-up message ("X must be <x-expected>"); numbers, booleans and enums are phrased from
 * their schema.
 */
import os from 'node:os'
import { Type, type Static, type TSchema } from '@sinclair/typebox'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** Formats checked with the WHATWG URL parser (config.ts registers them): name -> accepted protocols. */
export const URL_FORMATS = {
  'postgres-url': ['postgres:', 'postgresql:'],
  'http-url': ['http:', 'https:'],
  'rpc-url': ['http:', 'https:', 'ws:', 'wss:'],
} as const

const int = (fallback: number, minimum: number, maximum: number, description: string) =>
  Type.Integer({ default: fallback, minimum, maximum, description })
const optionalInt = (minimum: number, maximum: number, description: string) =>
  Type.Optional(Type.Integer({ minimum, maximum, description }))
const flag = (description: string) => Type.Boolean({ default: false, description })
const url = (format: keyof typeof URL_FORMATS, description: string) =>
  Type.Optional(Type.String({ format, description, 'x-expected': `a ${URL_FORMATS[format].join(' or ')} URL` }))
const address = (description: string) =>
  Type.Optional(
    Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description, 'x-expected': '0x followed by 40 hex characters' }),
  )
/** A comma-separated list, each item checked on its own. */
const list = <T extends TSchema>(item: T, fallback: string[], description: string) =>
  Type.Array(item, { default: fallback, description })

const MIB = 1024 * 1024
const MINUTE = 60_000
const DAY_S = 86400

export const EnvSchema = Type.Object({
  PORT: int(3000, 0, 65535, 'Listen port'),
  HOST: Type.String({ default: '127.0.0.1', description: 'Listen address (0.0.0.0 in a container)' }),
  DATA_DIR: Type.String({
    default: './data',
    description: 'Embedded database and the generated master key; one server at a time',
  }),
  DATABASE_URL: url('postgres-url', 'PostgreSQL instead of embedded PGlite'),
  DATABASE_UNNAMED_STATEMENTS: flag(
    'Send statements unnamed, for a pooler in transaction mode that cannot keep prepared statements',
  ),
  PUBLIC_BASE_URL: url('http-url', 'Public address: JWT issuer, links in responses (default http://HOST:PORT)'),
  ACCEPT_NEW_PUBLIC_BASE_URL: flag(
    'Record a PUBLIC_BASE_URL other than the one this database was set up with, instead of refusing to start',
  ),
  MASTER_KEY: Type.Optional(
    Type.String({
      format: 'key-32',
      description:
        'Seals every private key at rest; unset: generated once into DATA_DIR (mode 0600); required with DATABASE_URL',
      'x-expected': '32 bytes as 64 hex characters or base64',
    }),
  ),
  JWT_TTL_SECONDS: int(3600, 60, 30 * DAY_S, 'Session token lifetime'),
  CHALLENGE_TTL_SECONDS: int(300, 10, 3600, 'Login challenge lifetime'),
  IDEMPOTENCY_KEY_TTL_SECONDS: int(
    DAY_S,
    60,
    30 * DAY_S,
    'How long an Idempotency-Key answers its first result (docs/idempotency.md)',
  ),
  STEP_UP_TTL_SECONDS: int(900, 10, DAY_S, "How long an issuer's step-up lasts, for the session that performed it"),
  IPFS_API_URL: url('http-url', 'Kubo RPC URL; unset: content lives in the database'),
  BLOCKCHAIN_RPC_URL: url(
    'rpc-url',
    'Chain anchoring; unset: nothing is queued and the blockchain write routes answer 503',
  ),
  BLOCKCHAIN_PRIVATE_KEY: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{64}$',
      description: 'Key of the account that sends anchoring transactions; required with BLOCKCHAIN_RPC_URL',
      'x-expected': '0x followed by 64 hex characters',
    }),
  ),
  BLOCKCHAIN_CREDENTIAL_REGISTRY: address(
    'Credential registry address (npm run chain:deploy prints it); required with BLOCKCHAIN_RPC_URL',
  ),
  BLOCKCHAIN_SCHEMA_REGISTRY: address('Schema registry address; required with BLOCKCHAIN_RPC_URL'),
  BLOCKCHAIN_CONSENT_REGISTRY: address('Consent registry address; required with BLOCKCHAIN_RPC_URL'),
  BLOCKCHAIN_CREDENTIAL_REGISTRY_V1: address(
    'After an upgrade, the old credential registry that keeps version-1 batches (docs/blockchain.md "Upgrading a deployment")',
  ),
  BLOCKCHAIN_BATCH_SIZE: int(1000, 1, 10_000, 'Most credential hashes anchored by one Merkle-root transaction'),
  BLOCKCHAIN_BATCH_WAIT_MS: int(30_000, 0, 3600_000, 'How long the first queued hash waits for its batch to fill'),
  BLOCKCHAIN_POLL_MS: int(2000, 10, MINUTE, 'Chain outbox poll when idle, and the first retry delay'),
  BLOCKCHAIN_LEASE_MS: int(
    5 * MINUTE,
    5_000,
    3600_000,
    'How long a claimed chain job stays claimed: after a crash, its resend waits this long',
  ),
  ADMIN_API_KEY: Type.Optional(
    Type.String({
      minLength: 16,
      description: 'Enables /api/admin/* (header X-Admin-Key); unset: the admin group answers 404',
      'x-expected': 'at least 16 characters',
    }),
  ),
  CALLBACK_ALLOW_PRIVATE: flag('Let webhooks reach private/loopback addresses (development only)'),
  CALLBACK_POLL_MS: int(1000, 10, MINUTE, 'How often the callback dispatcher looks for due events when idle'),
  CALLBACK_MAX_ATTEMPTS: int(12, 1, 100, 'Delivery attempts before a callback event is given up (dead)'),
  // Its lower bound and default follow OUTBOUND_TIMEOUT_MS (config.ts).
  CALLBACK_LEASE_MS: optionalInt(
    1100,
    3600_000,
    'How long a claimed callback stays claimed: after a crash, its redelivery waits this long',
  ),
  OUTBOUND_ALLOW_PRIVATE: flag(
    'Let did:web and other outgoing fetches reach private/loopback addresses (development only)',
  ),
  DID_WEB_ALLOW_HTTP: flag('Resolve did:web over plain HTTP (development and tests only)'),
  OUTBOUND_TIMEOUT_MS: int(5000, 100, MINUTE, 'Time limit of an outgoing fetch'),
  CLOCK_SKEW_SECONDS: int(
    60,
    0,
    300,
    "Clock difference tolerated on nbf, iat and exp of JWTs from elsewhere (RFC 7519 §4.1.4-6: 'some small leeway')",
  ),
  RATE_LIMIT_AUTH_PER_MINUTE: int(120, 1, 10_000_000, 'Requests per client IP per minute on the auth routes'),
  RATE_LIMIT_RESOLVE_PER_MINUTE: int(600, 1, 10_000_000, 'DID resolutions per client IP per minute'),
  BODY_LIMIT_BYTES: int(
    MIB,
    1024,
    64 * MIB,
    'Largest JSON body on routes that carry credentials, schemas, attributes or files',
  ),
  SMALL_BODY_LIMIT_BYTES: int(64 * 1024, 1024, 64 * MIB, 'Largest JSON body on public, admin and small control routes'),
  REQUEST_TIMEOUT_MS: int(
    15 * MINUTE,
    1000,
    24 * 3600_000,
    "Longest time to receive a whole request, headers and body (Node's server.requestTimeout)",
  ),
  HEADERS_TIMEOUT_MS: int(
    20_000,
    1000,
    600_000,
    "Longest time to receive a request's headers; at most REQUEST_TIMEOUT_MS",
  ),
  BODY_RATE_WINDOW_MS: int(
    10_000,
    100,
    600_000,
    'A request body must deliver BODY_MIN_BYTES_PER_SECOND x this much in every window this long',
  ),
  BODY_MIN_BYTES_PER_SECOND: int(500, 1, 100 * MIB, 'Slowest body upload rate, measured over BODY_RATE_WINDOW_MS'),
  CONTENT_MAX_BYTES: int(32 * MIB, 1024, 1024 * MIB, 'Largest object the content store takes or serves'),
  AVATAR_MAX_BYTES: int(2 * MIB, 1024, 16 * MIB, 'Largest avatar upload'),
  // Its upper bound and default follow CONTENT_MAX_BYTES (config.ts).
  EVIDENCE_MAX_BYTES: optionalInt(
    1024,
    1024 * MIB,
    'Largest evidence upload; must fit CONTENT_MAX_BYTES once sealed (about 4/3 of the file)',
  ),
  EVIDENCE_ALLOWED_TYPES: list(
    Type.String({
      pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$',
      'x-expected': 'a media type (type/subtype)',
    }),
    ['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'text/plain', 'application/json'],
    'Media types accepted as evidence, comma-separated',
  ),
  WALLET_SHARE_MAX_TTL_SECONDS: int(7 * DAY_S, 60, 365 * DAY_S, 'Longest lifetime of a wallet share link'),
  WALLET_STATUS_REFRESH_MS: int(
    15 * MINUTE,
    0,
    30 * DAY_S * 1000,
    "How old an imported credential's status reading may get before its list is read again; 0: never",
  ),
  PGLITE_MAINTENANCE_MS: int(
    MINUTE,
    0,
    3600_000,
    'Embedded database: how often tables past autovacuum thresholds are vacuumed, analyzed and frozen; 0: never',
  ),
  BBS_WORKERS: int(
    Math.max(1, os.availableParallelism()),
    1,
    64,
    'Worker threads for BBS signing and proofs (WebAssembly, ~100 MB each); default: CPU count',
  ),
  LOG_LEVEL: Type.Union(
    LOG_LEVELS.map((level) => Type.Literal(level)),
    { default: 'info', description: 'Log level; tokens, keys and seeds are never logged' },
  ),
  CONSOLE_DIR: Type.Optional(
    Type.String({ description: 'Built web console served at /app; unset: packages/console/dist of this checkout' }),
  ),
  CORS_ORIGINS: list(Type.String(), [], 'Origins allowed cross-origin, comma-separated (* for any)'),
  REGISTRABLE_DID_METHODS: list(
    Type.String({ pattern: '^[a-z0-9]+$', 'x-expected': 'a DID method name' }),
    ['example'],
    'DID methods this service is the authority for, comma-separated; methods that carry or resolve their own keys are refused',
  ),
  // Parsed by config.ts: the text decides the type.
  TRUST_PROXY: Type.Optional(
    Type.String({
      description: 'Behind a load balancer: true, a hop count, or trusted proxy addresses/CIDRs, comma-separated',
    }),
  ),
  TLS_CERT_FILE: Type.Optional(
    Type.String({ minLength: 1, description: 'Listen with HTTPS: PEM certificate chain file (with TLS_KEY_FILE)' }),
  ),
  TLS_KEY_FILE: Type.Optional(Type.String({ minLength: 1, description: 'PEM private key file of TLS_CERT_FILE' })),
})

export type Env = Static<typeof EnvSchema>
