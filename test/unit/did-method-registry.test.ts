/**
 * A DID method is one DidMethod registered in the registry: a made-up `did:example` (the base64url
 * of an Ed25519 key, its own document) added here, and nothing else changed, is normalised,
 * resolved, verifies a JWS, signs in and registers through the service's own functions, and
 * config refuses it as registrable. Real keys and signatures; no database (a self-certifying DID
 * signs in before any lookup) and no network.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { publicKeyToMultibase } from '../../src/crypto/did-key.js'
import { signCompactJws } from '../../src/crypto/jws.js'
import type { Executor } from '../../src/db/database.js'
import { ValidationError } from '../../src/errors.js'
import { registrationOrigin } from '../../src/modules/auth/registration-policy.js'
import { SignerKeyResolver } from '../../src/modules/auth/signer-keys.js'
import type { DidDocument } from '../../src/modules/did/did-document.js'
import { verifyDidJws } from '../../src/modules/did/did-jws.js'
import { normalizeDid } from '../../src/modules/did/did-normalize.js'
import { createDidResolver } from '../../src/modules/did/did-resolver.js'
import type { DidMethod } from '../../src/modules/did/methods/did-method.js'
import { didMethods } from '../../src/modules/did/methods/registered-methods.js'

const PREFIX = 'did:example:'
const keyOf = (did: string) => new Uint8Array(Buffer.from(did.slice(PREFIX.length), 'base64url'))

/** did:example:<base64url of a 32-byte Ed25519 public key>: the DID is its key, like did:key. */
const example: DidMethod = {
  name: 'example',
  selfCertifying: true,
  checkSyntax(did) {
    if (!/^did:example:[A-Za-z0-9_-]{43}$/.test(did))
      throw new ValidationError(`${did} is not a did:example: its id is not a base64url Ed25519 key`)
  },
  resolver: () => ({
    async resolve(did): Promise<DidDocument> {
      const id = `${did}#0`
      return {
        id: did,
        verificationMethod: [
          { id, type: 'Multikey', controller: did, publicKeyMultibase: publicKeyToMultibase('ed25519', keyOf(did)) },
        ],
        authentication: [id],
        assertionMethod: [id],
      }
    },
  }),
  signIn: {
    origin: 'did-example',
    keys: (did) => [keyOf(did)],
    registersOwnKey(did, publicKey) {
      if (Buffer.compare(keyOf(did), publicKey) !== 0)
        throw new ValidationError('public_key is not the key of this did:example')
    },
  },
}

function holder() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const raw = new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'))
  return { raw, privateKey, did: `${PREFIX}${Buffer.from(raw).toString('base64url')}` }
}

/** Any use of the database fails the test: sign-in of a self-certifying DID must not need it. */
const noDatabase = new Proxy(
  {},
  {
    get: () => {
      throw new Error('no database in this test')
    },
  },
) as Executor
const noNetwork = async (): Promise<never> => {
  throw new Error('no network in this test')
}

describe('a DID method added through the registry', () => {
  const alice = holder()
  let localLookups = 0
  const resolver = createDidResolver({
    httpGet: noNetwork,
    lookupLocal: async () => {
      localLookups++
      return undefined
    },
    hosted: async () => {
      localLookups++
      return undefined
    },
  })
  let unregister: () => void = () => {}

  it('is unknown before it is registered', async () => {
    assert.equal(normalizeDid('did:example:short'), 'did:example:short')
    await assert.rejects(
      resolver.resolve(alice.did),
      /DID method "example" is not supported: did:key, did:jwk, did:web and DIDs registered/,
    )
  })

  describe('once registered', () => {
    before(() => {
      unregister = didMethods.register(example)
    })
    after(() => unregister())

    it('normalises with its syntax checks', () => {
      assert.equal(normalizeDid(`  DID:Example:${alice.did.slice(PREFIX.length)}#0 `), alice.did)
      assert.throws(
        () => normalizeDid('did:example:short'),
        (e: unknown) => e instanceof ValidationError && /is not a did:example/.test(e.message),
      )
    })

    it('resolves through its own resolver, before anything local', async () => {
      localLookups = 0
      const { didDocument, didResolutionMetadata } = await resolver.resolve(`${alice.did}#0`)
      assert.deepEqual(didDocument.authentication, [`${alice.did}#0`])
      assert.equal(didResolutionMetadata.contentType, 'application/did+json')
      assert.equal(localLookups, 0, 'a self-certifying DID is not looked up locally')
    })

    it('verifies a JWS signed by its key', async () => {
      const jws = await signCompactJws({ kid: `${alice.did}#0` }, { hello: 'world' }, alice.privateKey)
      const verified = await verifyDidJws(resolver, jws, 'authentication')
      assert.equal(verified.did, alice.did)
    })

    it('signs in with the keys it names, and registers with its own key only', async () => {
      const signer = await new SignerKeyResolver(noDatabase, resolver).keysFor(alice.did)
      assert.equal(signer.origin, 'did-example')
      assert.deepEqual(
        signer.keys.map((k) => Buffer.from(k.raw)),
        [Buffer.from(alice.raw)],
      )
      assert.equal(registrationOrigin(alice.did, alice.raw, []), 'did-example')
      assert.throws(() => registrationOrigin(alice.did, holder().raw, ['example']), /not the key of this did:example/)
    })

    it('is refused as a registrable method by config', () => {
      assert.throws(
        () => loadConfig({ REGISTRABLE_DID_METHODS: 'example' }),
        /did:example DIDs carry or resolve their own keys/,
      )
    })
  })

  it('is gone once removed', () => {
    assert.equal(didMethods.get('example'), undefined)
    assert.equal(normalizeDid('did:example:short'), 'did:example:short')
  })
})
