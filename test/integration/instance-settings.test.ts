/**
 * Instances on one database must share MASTER_KEY and PUBLIC_BASE_URL (issue 26): the first one
 * records them, a later one with other values refuses to start naming the setting
 * (test/process/instance-settings.test.ts: the server process exits with code 2).
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { InstanceSettingsMismatchError } from '../../src/errors.js'
import { DidClient } from '../helpers/did-client.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

describe('settings shared by instances on one database', () => {
  let first: TestApp
  before(async () => {
    first = await createTestApp()
  })
  after(() => first.close())

  /** Another instance on the first one's database, with some settings changed. */
  const another = (env: Record<string, string>, masterKey = first.deps.masterKey) =>
    buildApp(
      loadConfig({
        DATA_DIR: first.config.dataDir,
        PUBLIC_BASE_URL: first.config.publicBaseUrl,
        LOG_LEVEL: 'silent',
        ...env,
      }),
      {
        ...first.deps,
        masterKey,
        database: { ...first.deps.database, close: async () => undefined },
      },
    )

  it('lets an instance with the same settings start, and its tokens hold on the first', async () => {
    const second = await another({})
    try {
      const holder = new DidClient()
      const token = await holder.login(second)
      const me = await first.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${token}` },
      })
      assert.equal(me.statusCode, 200)
    } finally {
      await second.close()
    }
  })

  it('refuses another master key, without showing either key', async () => {
    const otherKey = new Uint8Array(randomBytes(32))
    await assert.rejects(another({}, otherKey), (error: Error) => {
      assert.ok(error instanceof InstanceSettingsMismatchError)
      assert.match(error.message, /MASTER_KEY/)
      for (const key of [first.deps.masterKey, otherKey]) {
        const bytes = Buffer.from(key)
        for (const encoding of ['hex', 'base64', 'base64url'] as const)
          assert.ok(!error.message.includes(bytes.toString(encoding)))
      }
      return true
    })
  })

  it('refuses another PUBLIC_BASE_URL, naming both, until the move is accepted once', async () => {
    await assert.rejects(another({ PUBLIC_BASE_URL: 'https://moved.example' }), (error: Error) => {
      assert.ok(error instanceof InstanceSettingsMismatchError)
      assert.match(
        error.message,
        /PUBLIC_BASE_URL is https:\/\/moved\.example but this database was set up with http:\/\/service\.test/,
      )
      assert.match(error.message, /ACCEPT_NEW_PUBLIC_BASE_URL/)
      return true
    })
    const moved = await another({ PUBLIC_BASE_URL: 'https://moved.example', ACCEPT_NEW_PUBLIC_BASE_URL: 'true' })
    await moved.close()
    // The record now holds the new address: an instance on the old one is refused in turn.
    await assert.rejects(
      another({}),
      /PUBLIC_BASE_URL is http:\/\/service\.test but this database was set up with https:\/\/moved\.example/,
    )
    // Accepting a new address does not let another master key through.
    await assert.rejects(
      another(
        { PUBLIC_BASE_URL: 'https://third.example', ACCEPT_NEW_PUBLIC_BASE_URL: 'true' },
        new Uint8Array(randomBytes(32)),
      ),
      /MASTER_KEY/,
    )
    await (await another({ PUBLIC_BASE_URL: 'https://moved.example' })).close()
  })
})
