/**
 * The resolver's short cache of service-managed keys (issuer keys added to a DID's document) and
 * verifyDidJws's one fresh retry when a JWS names a key the cached document lacks: real did:key
 * DIDs and real Ed25519 signatures; only the database edge (serviceKeys) is a function here.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { describe, it } from 'node:test'
import { encodeDidKey, publicKeyToMultibase } from '../../src/crypto/did-key.js'
import { signCompactJws } from '../../src/crypto/jws.js'
import { JwsRejected, verifyDidJws } from '../../src/modules/did/did-jws.js'
import { createDidResolver, type ServiceVerificationMethod } from '../../src/modules/did/did-resolver.js'

function ed25519() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32))
  return { raw, privateKey }
}

describe('service keys in DID documents', () => {
  const subject = ed25519()
  const did = encodeDidKey('ed25519', subject.raw)
  const issuerKey = ed25519()
  let stored: ServiceVerificationMethod[] = []
  let reads = 0
  let clock = 0
  const resolver = createDidResolver({
    httpGet: async () => {
      throw new Error('no network in this test')
    },
    lookupLocal: async () => undefined,
    serviceKeys: async () => {
      reads++
      return stored
    },
    now: () => clock,
    serviceKeysTtlMs: 10_000,
  })
  const methodIds = async (fresh = false) => ((await resolver.resolve(did, { fresh })).didDocument.verificationMethod as Array<{ id: string }>).map((m) => m.id)

  it('reads them once per TTL, and again when asked for a fresh document', async () => {
    stored = []
    const before = reads
    const own = (await methodIds()).length // the did:key's own methods
    await methodIds()
    assert.equal(reads - before, 1, 'second resolution served from the cache')
    stored = [{ fragment: 'issuer-key', type: 'Multikey', publicKeyMultibase: publicKeyToMultibase('ed25519', issuerKey.raw) }]
    assert.equal((await methodIds()).length, own, 'within the TTL the cached list is served')
    assert.ok((await methodIds(true)).includes(`${did}#issuer-key`), 'fresh reads the store')
    clock += 10_001
    stored = []
    assert.equal((await methodIds()).length, own, 'after the TTL the store is read again')
  })

  it('verifies a JWS by a key made after the document was cached (one fresh retry), and rejects an unknown key', async () => {
    stored = []
    await methodIds() // caches a document without the issuer key
    stored = [{ fragment: 'new-key', type: 'Multikey', publicKeyMultibase: publicKeyToMultibase('ed25519', issuerKey.raw) }]
    const jws = await signCompactJws({ alg: 'EdDSA', kid: `${did}#new-key` }, { hello: 'world' }, issuerKey.privateKey)
    const verified = await verifyDidJws(resolver, jws, 'assertionMethod')
    assert.equal(verified.kid, `${did}#new-key`)
    const unknown = await signCompactJws({ alg: 'EdDSA', kid: `${did}#missing` }, { hello: 'world' }, issuerKey.privateKey)
    await assert.rejects(verifyDidJws(resolver, unknown, 'assertionMethod'), (e: unknown) => e instanceof JwsRejected && /missing is not an Ed25519 assertionMethod key/.test((e as Error).message))
    const forged = await signCompactJws({ alg: 'EdDSA', kid: `${did}#new-key` }, { hello: 'world' }, subject.privateKey)
    await assert.rejects(verifyDidJws(resolver, forged, 'assertionMethod'), /does not verify/)
  })
})
