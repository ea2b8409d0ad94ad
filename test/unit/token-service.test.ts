import assert from 'node:assert/strict'
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { describe, it } from 'node:test'
import { TokenService } from '../../src/modules/auth/token-service.js'
import type { KeyStore, PublicKeyInfo } from '../../src/modules/keys/key-store.js'

const KID = 'key-00000000-0000-4000-8000-000000000001'
const TTL_SECONDS = 3600

/** The two key-store calls TokenService makes, over one in-memory Ed25519 key whose status a test can change. */
function fakeKeys() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const info: PublicKeyInfo = {
    kid: KID,
    owner: 'service',
    purpose: 'jwt',
    algorithm: 'Ed25519',
    publicKey: new Uint8Array(32),
    status: 'active',
    createdAt: new Date(0),
    retiredAt: null,
  }
  const store = {
    activeSigningKey: async () => ({ kid: KID, privateKey, publicKeyObject: publicKey }),
    publicKey: async () => ({ ...info }),
    publicKeyObject: async (): Promise<KeyObject> => publicKey,
  }
  return { store: store as unknown as KeyStore, info, privateKey }
}

describe('TokenService: verified tokens are remembered, not trusted for longer than they are valid', () => {
  const setUp = () => {
    let now = new Date('2026-11-23T12:00:00Z')
    const keys = fakeKeys()
    const tokens = new TokenService(keys.store, 'https://service.test', TTL_SECONDS, () => now)
    return { keys, tokens, advance: (ms: number) => (now = new Date(now.getTime() + ms)) }
  }

  it('answers the same claims on every use of a token', async () => {
    const { tokens } = setUp()
    const { token, claims } = await tokens.issue('did:key:z6MkAlice')
    for (let i = 0; i < 3; i++) assert.deepEqual(await tokens.verify(token), claims)
  })

  it('refuses a remembered token once it expires', async () => {
    const { tokens, advance } = setUp()
    const { token } = await tokens.issue('did:key:z6MkAlice')
    await tokens.verify(token)
    advance(TTL_SECONDS * 1000)
    await assert.rejects(tokens.verify(token), /expired/i)
    await assert.rejects(tokens.verify(token), /expired/i)
  })

  it('refuses a remembered token once its key has been retired for longer than a token lives', async () => {
    const { tokens, keys, advance } = setUp()
    const { token } = await tokens.issue('did:key:z6MkAlice')
    await tokens.verify(token)
    keys.info.status = 'retired'
    keys.info.retiredAt = new Date('2026-11-23T12:00:00Z')
    // Past the key cache's minute the retirement is seen; within the token's life it still verifies.
    advance(61_000)
    assert.equal((await tokens.verify(token)).did, 'did:key:z6MkAlice')
    // Tokens issued before the retirement expire by then anyway; so does trust in the key.
    keys.info.retiredAt = new Date('2026-11-23T10:00:00Z')
    advance(61_000)
    await assert.rejects(tokens.verify(token), /invalid token/i)
  })

  it('does not accept another signature over the same claims because the genuine token was seen', async () => {
    const { tokens } = setUp()
    const { token } = await tokens.issue('did:key:z6MkAlice')
    await tokens.verify(token)
    const [header, payload] = token.split('.') as [string, string]
    const forged = `${header}.${payload}.${sign(null, Buffer.from(`${header}.${payload}`), generateKeyPairSync('ed25519').privateKey).toString('base64url')}`
    for (let i = 0; i < 2; i++) await assert.rejects(tokens.verify(forged), /invalid token/i)
    assert.equal((await tokens.verify(token)).did, 'did:key:z6MkAlice')
  })
})
