import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config.js'

/** TLS_CERT_FILE and TLS_KEY_FILE: both or neither, each read at start. Files only, no certificate parsing here. */
describe('config: TLS_CERT_FILE and TLS_KEY_FILE', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'config-tls-'))
  const certFile = path.join(dir, 'cert.pem')
  const keyFile = path.join(dir, 'key.pem')
  writeFileSync(certFile, 'CERT BYTES')
  writeFileSync(keyFile, 'KEY BYTES')
  after(() => rmSync(dir, { recursive: true, force: true }))

  const configError = (env: Record<string, string>): ConfigError => {
    try {
      loadConfig(env)
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error))
      return error
    }
    assert.fail(`loadConfig(${JSON.stringify(env)}) did not throw`)
  }

  it('neither: plain HTTP, an http PUBLIC_BASE_URL by default', () => {
    const config = loadConfig({})
    assert.equal(config.tls, undefined)
    assert.match(config.publicBaseUrl, /^http:\/\//)
  })

  it('one without the other: a ConfigError naming both', () => {
    for (const env of [{ TLS_CERT_FILE: certFile }, { TLS_KEY_FILE: keyFile }] as Array<Record<string, string>>) {
      const error = configError(env)
      assert.match(error.message, /TLS_CERT_FILE/)
      assert.match(error.message, /TLS_KEY_FILE/)
    }
  })

  it('an unreadable file: a ConfigError naming the variable and the file', () => {
    const missing = path.join(dir, 'nope.pem')
    const badCert = configError({ TLS_CERT_FILE: missing, TLS_KEY_FILE: keyFile })
    assert.match(badCert.message, /TLS_CERT_FILE/)
    assert.ok(badCert.message.includes(missing))
    assert.ok(!badCert.problems.some((p) => p.includes('TLS_KEY_FILE')), 'the readable key is not blamed')
    const badKey = configError({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: missing })
    assert.match(badKey.message, /TLS_KEY_FILE/)
    assert.ok(badKey.message.includes(missing))
    // A directory is no file either.
    assert.match(configError({ TLS_CERT_FILE: dir, TLS_KEY_FILE: keyFile }).message, /TLS_CERT_FILE/)
    // Both wrong: both named in the one error.
    const both = configError({ TLS_CERT_FILE: missing, TLS_KEY_FILE: `${missing}.key` })
    assert.equal(both.problems.filter((p) => /TLS_(CERT|KEY)_FILE/.test(p)).length, 2)
  })

  it('both: their bytes, and an https PUBLIC_BASE_URL by default (an explicit one wins)', () => {
    const config = loadConfig({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, HOST: '127.0.0.1', PORT: '8443' })
    assert.equal(config.tls?.cert.toString(), 'CERT BYTES')
    assert.equal(config.tls?.key.toString(), 'KEY BYTES')
    assert.equal(config.publicBaseUrl, 'https://127.0.0.1:8443')
    assert.equal(
      loadConfig({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, PUBLIC_BASE_URL: 'https://id.example.org/' })
        .publicBaseUrl,
      'https://id.example.org',
    )
  })
})
