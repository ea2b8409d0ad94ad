/**
 * The resolver registry: hosted did:webs answered locally (never fetched), verifyDidJws's one
 * fresh retry when a cached hosted document predates a key, the legacy lookup used only for
 * assertions, and did:jwk. Real Ed25519 keys and signatures; only the hosted and legacy edges are
 * functions here.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { describe, it } from 'node:test'
import { publicKeyToMultibase } from '../../src/crypto/did-key.js'
import { signCompactJws } from '../../src/crypto/jws.js'
import type { DidDocument } from '../../src/modules/did/did-document.js'
import { JwsRejected, verifyDidJws } from '../../src/modules/did/did-jws.js'
import { createDidResolver } from '../../src/modules/did/did-resolver.js'

function ed25519() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32))
  return { raw, privateKey, jwk: publicKey.export({ format: 'jwk' }) }
}

const HOSTED = 'did:web:service.test:issuers:abc'
/** SEC 1 §2.3.3 compression of an uncompressed point, by hand so the test does not lean on the code under test. */
const p256Compressed = (point: Uint8Array) => Uint8Array.of(2 + (point[64]! & 1), ...point.subarray(1, 33))
const noNetwork = async (): Promise<never> => {
  throw new Error('no network in this test')
}

describe('DID resolver registry', () => {
  const key = ed25519()
  const legacyKey = ed25519()
  let published: string[] = []
  let cached: DidDocument | undefined
  let lookups = 0
  const documentWith = (fragments: string[]): DidDocument => {
    const methods = fragments.map((f) => ({
      id: `${HOSTED}#${f}`,
      type: 'Multikey',
      controller: HOSTED,
      publicKeyMultibase: publicKeyToMultibase('ed25519', key.raw),
    }))
    return { id: HOSTED, verificationMethod: methods, assertionMethod: methods.map((m) => m.id) }
  }
  const resolver = createDidResolver({
    httpGet: noNetwork,
    lookupLocal: async () => undefined,
    // A short cache like the service's: a fresh read sees keys made since.
    hosted: async (did, fresh) => {
      if (did !== HOSTED) return undefined
      lookups++
      if (fresh || !cached) cached = documentWith(published)
      return cached
    },
    legacyAssertionMethod: async (kid) =>
      kid === 'did:example:old#key-1'
        ? {
            id: kid,
            type: 'Multikey',
            controller: 'did:example:old',
            publicKeyMultibase: publicKeyToMultibase('ed25519', legacyKey.raw),
          }
        : undefined,
  })

  it('answers a hosted did:web from the service, without fetching it', async () => {
    published = ['k1']
    const doc = (await resolver.resolve(HOSTED, { fresh: true })).didDocument
    assert.deepEqual(doc.assertionMethod, [`${HOSTED}#k1`])
    await assert.rejects(resolver.resolve('did:web:elsewhere.test'), /no network|Could not fetch/)
  })

  it('verifies a JWS by a key made after the document was cached (one fresh retry), and rejects an unknown key', async () => {
    published = []
    cached = undefined
    await resolver.resolve(HOSTED) // caches a document without the key
    published = ['new-key']
    const before = lookups
    const jws = await signCompactJws({ kid: `${HOSTED}#new-key` }, { hello: 'world' }, key.privateKey)
    assert.equal((await verifyDidJws(resolver, jws, 'assertionMethod')).kid, `${HOSTED}#new-key`)
    assert.equal(lookups - before, 2, 'the cached document, then one fresh one')
    const unknown = await signCompactJws({ kid: `${HOSTED}#missing` }, { hello: 'world' }, key.privateKey)
    await assert.rejects(
      verifyDidJws(resolver, unknown, 'assertionMethod'),
      (e: unknown) =>
        e instanceof JwsRejected && /missing is not an Ed25519 or P-256 assertionMethod key/.test((e as Error).message),
    )
    const forged = await signCompactJws({ kid: `${HOSTED}#new-key` }, { hello: 'world' }, legacyKey.privateKey)
    await assert.rejects(verifyDidJws(resolver, forged, 'assertionMethod'), /does not verify/)
  })

  it('verifies ES256 by a P-256 Multikey and a P-256 JWK of one document', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const point = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-65))
    const did = 'did:web:service.test:issuers:p256'
    const jwk = publicKey.export({ format: 'jwk' })
    const p256Resolver = createDidResolver({
      httpGet: noNetwork,
      lookupLocal: async () => undefined,
      hosted: async (asked) =>
        asked === did
          ? {
              id: did,
              verificationMethod: [
                {
                  id: `${did}#mb`,
                  type: 'Multikey',
                  controller: did,
                  publicKeyMultibase: publicKeyToMultibase('p256', p256Compressed(point)),
                },
                {
                  id: `${did}#jwk`,
                  type: 'JsonWebKey2020',
                  controller: did,
                  publicKeyJwk: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! },
                },
              ],
              assertionMethod: [`${did}#mb`, `${did}#jwk`],
            }
          : undefined,
    })
    for (const fragment of ['mb', 'jwk']) {
      const jws = await signCompactJws({ kid: `${did}#${fragment}` }, { n: fragment }, privateKey)
      assert.equal((await verifyDidJws(p256Resolver, jws, 'assertionMethod')).payload.n, fragment)
    }
  })

  it('accepts a legacy issuer key for an assertion only, never to authenticate', async () => {
    const jws = await signCompactJws({ kid: 'did:example:old#key-1' }, { vc: {} }, legacyKey.privateKey)
    assert.equal((await verifyDidJws(resolver, jws, 'assertionMethod')).did, 'did:example:old')
    await assert.rejects(verifyDidJws(resolver, jws, 'authentication'), JwsRejected)
  })

  it('resolves did:jwk and verifies with its key', async () => {
    const holder = ed25519()
    const did = `did:jwk:${Buffer.from(JSON.stringify(holder.jwk)).toString('base64url')}`
    const doc = (await resolver.resolve(did)).didDocument
    assert.deepEqual(doc.authentication, [`${did}#0`])
    const jws = await signCompactJws({ kid: `${did}#0` }, { n: 1 }, holder.privateKey)
    assert.equal((await verifyDidJws(resolver, jws, 'authentication')).did, did)
    const withPrivate = `did:jwk:${Buffer.from(JSON.stringify({ ...holder.jwk, d: 'AAAA' })).toString('base64url')}`
    await assert.rejects(resolver.resolve(withPrivate), /private key/)
  })
})
