import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config.js'
import { EnvSchema } from '../../src/config-schema.js'

describe('config', () => {
  it('has working defaults with nothing set', () => {
    const config = loadConfig({})
    assert.equal(config.port, 3000)
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.databaseUrl, undefined)
    assert.equal(config.databasePreparedStatements, true)
    assert.equal(config.jwtTtlSeconds, 3600)
    assert.equal(config.challengeTtlSeconds, 300)
    assert.equal(config.rateLimitAuthPerMinute, 120)
    assert.equal(config.callbackAllowPrivate, false)
    assert.equal(config.adminApiKey, undefined)
    assert.equal(config.publicBaseUrl, 'http://127.0.0.1:3000')
    assert.ok(Object.isFrozen(config))
  })

  it('reads and converts every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u@db:5432/x',
      TRUST_PROXY: 'true',
      PUBLIC_BASE_URL: 'https://id.example.org/',
      MASTER_KEY: 'ab'.repeat(32),
      JWT_TTL_SECONDS: '600',
      CALLBACK_ALLOW_PRIVATE: 'true',
      ADMIN_API_KEY: 'a-long-enough-admin-key',
      BLOCKCHAIN_PRIVATE_KEY: '0x' + '1'.repeat(64),
      DATABASE_UNNAMED_STATEMENTS: 'true',
    })
    assert.equal(config.port, 8080)
    assert.equal(config.databasePreparedStatements, false)
    assert.equal(config.publicBaseUrl, 'https://id.example.org')
    assert.equal(config.masterKey?.length, 32)
    assert.equal(config.jwtTtlSeconds, 600)
    assert.equal(config.callbackAllowPrivate, true)
    assert.equal(loadConfig({ MASTER_KEY: Buffer.alloc(32, 1).toString('base64') }).masterKey?.[0], 1)
  })

  it('requires a shared MASTER_KEY with PostgreSQL and refuses self-certifying methods as registrable', () => {
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://u@db/x' }), /MASTER_KEY is required with DATABASE_URL/)
    assert.throws(
      () => loadConfig({ REGISTRABLE_DID_METHODS: 'example,jwk' }),
      /did:jwk DIDs carry or resolve their own keys/,
    )
    assert.deepEqual(loadConfig({ REGISTRABLE_DID_METHODS: 'acme, example' }).registrableDidMethods, [
      'acme',
      'example',
    ])
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy, ['10.0.0.0/8', '127.0.0.1'])
    assert.equal(loadConfig({}).trustProxy, false)
  })

  it("has request timeouts that let a large upload on a slow link through, and refuses a headers timeout past the request's", () => {
    const config = loadConfig({})
    // The largest evidence file over a 128 kbit/s uplink fits the whole-request limit.
    assert.ok(config.requestTimeoutMs > ((config.evidenceMaxBytes * 8) / 128_000) * 1000)
    assert.ok(config.headersTimeoutMs <= config.requestTimeoutMs)
    assert.equal(
      loadConfig({ BODY_RATE_WINDOW_MS: '1000', BODY_MIN_BYTES_PER_SECOND: '2048' }).bodyMinBytesPerSecond,
      2048,
    )
    assert.throws(
      () => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '10000' }),
      /HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS/,
    )
    assert.throws(() => loadConfig({ BODY_MIN_BYTES_PER_SECOND: '0' }), /BODY_MIN_BYTES_PER_SECOND/)
  })

  it('refuses a value of the wrong type, out of its bounds, or outside its enum, quoting only what is safe to quote', () => {
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig(env)
      } catch (error) {
        if (error instanceof ConfigError) return error.problems
        throw error
      }
      return []
    }
    assert.deepEqual(problems({ JWT_TTL_SECONDS: '1e3' }), [
      'JWT_TTL_SECONDS must be a whole number from 60 to 2592000 (got "1e3")',
    ])
    assert.deepEqual(problems({ BBS_WORKERS: '0x10' }), [
      'BBS_WORKERS must be a whole number from 1 to 64 (got "0x10")',
    ])
    assert.deepEqual(problems({ PORT: '65536' }), ['PORT must be a whole number from 0 to 65535 (got "65536")'])
    assert.deepEqual(problems({ CHALLENGE_TTL_SECONDS: '9' }), [
      'CHALLENGE_TTL_SECONDS must be a whole number from 10 to 3600 (got "9")',
    ])
    assert.deepEqual(problems({ OUTBOUND_ALLOW_PRIVATE: 'Maybe' }), [
      'OUTBOUND_ALLOW_PRIVATE must be true or false (got "maybe")',
    ])
    assert.deepEqual(problems({ LOG_LEVEL: 'verbose' }), [
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ])
    assert.deepEqual(problems({ IPFS_API_URL: 'ftp://ipfs.test' }), ['IPFS_API_URL must be a http: or https: URL'])
    assert.deepEqual(problems({ BLOCKCHAIN_PRIVATE_KEY: '0x12' }), [
      'BLOCKCHAIN_PRIVATE_KEY must be 0x followed by 64 hex characters',
    ])
    assert.deepEqual(problems({ EVIDENCE_ALLOWED_TYPES: 'image/png, png, text' }), [
      'EVIDENCE_ALLOWED_TYPES: "png" is not a media type (type/subtype)',
      'EVIDENCE_ALLOWED_TYPES: "text" is not a media type (type/subtype)',
    ])
    assert.deepEqual(problems({ REGISTRABLE_DID_METHODS: 'Acme' }), [
      'REGISTRABLE_DID_METHODS: "Acme" is not a DID method name',
    ])
    // Bounds that follow another variable: the lease outlasts one outgoing request, evidence fits the content store once sealed.
    assert.deepEqual(problems({ OUTBOUND_TIMEOUT_MS: '10000', CALLBACK_LEASE_MS: '10500' }), [
      'CALLBACK_LEASE_MS must be a whole number from 11000 to 3600000 (got "10500")',
    ])
    assert.deepEqual(problems({ CONTENT_MAX_BYTES: '1048576', EVIDENCE_MAX_BYTES: '1000000' }), [
      'EVIDENCE_MAX_BYTES must be a whole number from 1024 to 783360 (got "1000000")',
    ])
    assert.equal(loadConfig({ CONTENT_MAX_BYTES: '1048576' }).evidenceMaxBytes, 783360)
    assert.equal(loadConfig({ OUTBOUND_TIMEOUT_MS: '30000' }).callbackLeaseMs, 120_000)
    // Surrounding spaces and empty values: trimmed, and empty is unset.
    assert.equal(loadConfig({ PORT: ' 8080 ', HOST: '' }).port, 8080)
    assert.equal(loadConfig({ HOST: '   ' }).host, '127.0.0.1')
    assert.deepEqual(loadConfig({ EVIDENCE_ALLOWED_TYPES: 'Image/PNG, text/plain,' }).evidenceAllowedTypes, [
      'image/png',
      'text/plain',
    ])
  })

  it('describes every variable in its schema, with a default or as optional', () => {
    for (const [name, schema] of Object.entries(EnvSchema.properties)) {
      assert.ok(typeof schema.description === 'string' && schema.description.length > 10, `${name} has a description`)
      assert.ok(
        'default' in schema || !(EnvSchema.required as string[] | undefined)?.includes(name),
        `${name} has a default or is optional`,
      )
    }
  })

  it('stops with one message naming every bad variable', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        MASTER_KEY: 'short',
        LOG_LEVEL: 'loud',
        CALLBACK_ALLOW_PRIVATE: 'maybe',
        ADMIN_API_KEY: 'short',
      })
      assert.fail('expected a ConfigError')
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      for (const name of [
        'PORT',
        'DATABASE_URL',
        'MASTER_KEY',
        'LOG_LEVEL',
        'CALLBACK_ALLOW_PRIVATE',
        'ADMIN_API_KEY',
      ]) {
        assert.match(error.message, new RegExp(name))
      }
      assert.equal(error.problems.length, 6)
      assert.ok(!error.message.includes('short"'), 'secret values are not echoed')
    }
  })
})
