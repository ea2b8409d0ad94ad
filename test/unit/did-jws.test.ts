/**
 * verifyDidJws refuses what an attacker would try, each with a message a holder or verifier can
 * act on. Real parts: did:key DIDs resolved by the service's resolver, Ed25519 keys, jose. The
 * hostile tokens are put together by hand here (alg none, HS256 keyed with the public key, a
 * flipped signature byte), the way an attacker would, not with the service's signer.
 */
import assert from 'node:assert/strict'
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { describe, it } from 'node:test'
import { encodeDidKey } from '../../src/crypto/did-key.js'
import { signCompactJws } from '../../src/crypto/jws.js'
import { JwsRejected, JwtClaimRejected, verifyDidJws, type JwtClaimChecks } from '../../src/modules/did/did-jws.js'
import { createDidResolver, type DidResolver } from '../../src/modules/did/did-resolver.js'
import { createVerifiablePresentationJwt } from 'did-jwt-vc'
import { EdDSASigner } from 'did-jwt'

const b64 = (value: unknown): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

function holder() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const raw = new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'))
  const did = encodeDidKey('ed25519', raw)
  return { raw, privateKey, did, kid: `${did}#${did.slice('did:key:'.length)}` }
}

/** Compact JWS signed with node:crypto directly: an independent signer for the hostile variants. */
function handSigned(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`
}

const rejectedWith = (pattern: RegExp) => (e: unknown) => {
  assert.ok(e instanceof JwsRejected, `expected JwsRejected, got ${String(e)}`)
  assert.match(e.message, pattern)
  return true
}

describe('verifyDidJws', () => {
  let resolutions = 0
  const real = createDidResolver({
    httpGet: async () => {
      throw new Error('no network in this test')
    },
    lookupLocal: async () => undefined,
  })
  const resolver: DidResolver = {
    resolve: (did, options) => (resolutions++, real.resolve(did, options)),
    legacyAssertionMethod: async () => undefined,
  }
  const alice = holder()
  const mallory = holder()
  const now = new Date('2026-11-23T12:00:00Z')
  const t = Math.floor(now.getTime() / 1000)
  const claims: JwtClaimChecks = { currentDate: now, clockTolerance: 60, requiredClaims: ['exp'] }

  it('verifies a JWS signed by a key the DID document lists, and says which', async () => {
    const jws = await signCompactJws({ kid: alice.kid }, { iss: alice.did, n: 1 }, alice.privateKey)
    const verified = await verifyDidJws(resolver, jws, 'authentication')
    assert.equal(verified.did, alice.did)
    assert.equal(verified.kid, alice.kid)
    assert.deepEqual(verified.payload, { iss: alice.did, n: 1 })
    // An independent signer's token verifies the same (RFC 8037 EdDSA, nothing service-specific).
    assert.equal(
      (
        await verifyDidJws(
          resolver,
          handSigned({ alg: 'EdDSA', kid: alice.kid }, { n: 2 }, alice.privateKey),
          'assertionMethod',
        )
      ).payload.n,
      2,
    )
  })

  it('refuses alg none, whatever the signature part holds', async () => {
    const payload = b64({ iss: alice.did })
    for (const signature of ['', 'AAAA']) {
      await assert.rejects(
        verifyDidJws(resolver, `${b64({ alg: 'none', kid: alice.kid })}.${payload}.${signature}`, 'authentication'),
        rejectedWith(/^unsupported alg "none" \(one of EdDSA, ES256 expected\)$/),
      )
    }
  })

  it('refuses HS256 keyed with the public key (algorithm confusion, RFC 8725 §2.1)', async () => {
    const input = `${b64({ alg: 'HS256', kid: alice.kid })}.${b64({ iss: alice.did })}`
    for (const secret of [alice.raw, Buffer.from(alice.did.slice('did:key:'.length))]) {
      const jws = `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
      await assert.rejects(
        verifyDidJws(resolver, jws, 'authentication'),
        rejectedWith(/^unsupported alg "HS256" \(one of EdDSA, ES256 expected\)$/),
      )
    }
    // The same MAC under an EdDSA header is just a wrong signature.
    const eddsaInput = `${b64({ alg: 'EdDSA', kid: alice.kid })}.${b64({ iss: alice.did })}`
    const mac = createHmac('sha256', alice.raw).update(eddsaInput).digest('base64url')
    await assert.rejects(
      verifyDidJws(resolver, `${eddsaInput}.${mac}`, 'authentication'),
      rejectedWith(/the signature does not verify with/),
    )
  })

  it('refuses a kid the DID document does not list, or that is no DID URL', async () => {
    // Mallory's key named as one of Alice's: not in Alice's document, whatever it signs.
    const foreign = handSigned(
      { alg: 'EdDSA', kid: `${alice.did}#${mallory.did.slice('did:key:'.length)}` },
      { iss: alice.did },
      mallory.privateKey,
    )
    await assert.rejects(
      verifyDidJws(resolver, foreign, 'assertionMethod'),
      rejectedWith(/ is not an Ed25519 or P-256 assertionMethod key of did:key:/),
    )
    const unknown = handSigned({ alg: 'EdDSA', kid: `${alice.did}#key-2` }, {}, alice.privateKey)
    await assert.rejects(
      verifyDidJws(resolver, unknown, 'authentication'),
      rejectedWith(/#key-2 is not an Ed25519 or P-256 authentication key of/),
    )
    for (const kid of ['key-1', `${alice.did}`, 7]) {
      await assert.rejects(
        verifyDidJws(resolver, handSigned({ alg: 'EdDSA', kid }, {}, alice.privateKey), 'authentication'),
        rejectedWith(/^header kid must be a DID URL/),
      )
    }
  })

  it('verifies ES256 by a P-256 did:key (signed by node:crypto, not jose), and pins alg to the key type', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const did = encodeDidKey('p256', new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-65)))
    const kid = `${did}#${did.slice('did:key:'.length)}`
    const input = `${b64({ alg: 'ES256', kid })}.${b64({ iss: did, n: 3 })}`
    const es256 = `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`
    assert.equal((await verifyDidJws(resolver, es256, 'assertionMethod')).payload.n, 3)
    // An Ed25519 kid with alg ES256, and a P-256 kid with alg EdDSA: refused before any signature check.
    await assert.rejects(
      verifyDidJws(resolver, handSigned({ alg: 'ES256', kid: alice.kid }, {}, alice.privateKey), 'authentication'),
      rejectedWith(/^alg "ES256" does not match/),
    )
    await assert.rejects(
      verifyDidJws(resolver, handSigned({ alg: 'EdDSA', kid }, {}, alice.privateKey), 'authentication'),
      rejectedWith(/^alg "EdDSA" does not match/),
    )
  })

  it('refuses a tampered signature or payload', async () => {
    const jws = await signCompactJws({ kid: alice.kid }, { iss: alice.did, amount: 1 }, alice.privateKey)
    const [h, p, s] = jws.split('.') as [string, string, string]
    const flipped = Buffer.from(s, 'base64url')
    flipped[10]! ^= 1
    await assert.rejects(
      verifyDidJws(resolver, `${h}.${p}.${flipped.toString('base64url')}`, 'authentication'),
      rejectedWith(/^the signature does not verify with did:key:/),
    )
    await assert.rejects(
      verifyDidJws(resolver, `${h}.${b64({ iss: alice.did, amount: 1000 })}.${s}`, 'authentication'),
      rejectedWith(/the signature does not verify/),
    )
    // Signed by Mallory under Alice's kid.
    await assert.rejects(
      verifyDidJws(resolver, handSigned({ alg: 'EdDSA', kid: alice.kid }, {}, mallory.privateKey), 'authentication'),
      rejectedWith(/the signature does not verify/),
    )
    await assert.rejects(verifyDidJws(resolver, `${h}.${p}`, 'authentication'), rejectedWith(/^not a compact JWS$/))
  })

  it('checks exp and nbf with the given clock and tolerance, after the signature', async () => {
    const token = (payload: Record<string, unknown>) =>
      signCompactJws({ kid: alice.kid }, { iss: alice.did, ...payload }, alice.privateKey)
    const claimRejected = (claim: string, reason: string) => (e: unknown) => {
      assert.ok(e instanceof JwtClaimRejected, `expected JwtClaimRejected, got ${String(e)}`)
      assert.equal(e.claim, claim)
      assert.equal(e.reason, reason)
      // What the signature proves comes with the refusal, for callers that report every problem.
      assert.equal(e.jws.did, alice.did)
      return true
    }
    await assert.rejects(
      verifyDidJws(resolver, await token({ exp: t - 61 }), 'authentication', claims),
      claimRejected('exp', 'check_failed'),
    )
    await assert.rejects(
      verifyDidJws(resolver, await token({ exp: '2030-01-01' }), 'authentication', claims),
      claimRejected('exp', 'invalid'),
    )
    await assert.rejects(
      verifyDidJws(resolver, await token({}), 'authentication', claims),
      claimRejected('exp', 'missing'),
    )
    await assert.rejects(
      verifyDidJws(resolver, await token({ exp: t + 600, iat: 'yesterday' }), 'authentication', claims),
      (e: unknown) =>
        claimRejected('iat', 'invalid')(e) && (e as Error).message === 'iat is not a NumericDate (RFC 7519 §2)',
    )
    await assert.rejects(
      verifyDidJws(resolver, await token({ exp: t + 600, nbf: t + 61 }), 'authentication', claims),
      claimRejected('nbf', 'check_failed'),
    )
    // Within the tolerance both ways.
    assert.ok(await verifyDidJws(resolver, await token({ exp: t - 59, nbf: t + 59 }), 'authentication', claims))
    // An expired JWT with a bad signature is refused for its signature: claims are read only once it verifies.
    const expired = handSigned({ alg: 'EdDSA', kid: alice.kid }, { exp: t - 3600 }, mallory.privateKey)
    await assert.rejects(
      verifyDidJws(resolver, expired, 'authentication', claims),
      rejectedWith(/the signature does not verify/),
    )
    // Without claim checks only the signature is verified (a status list, a VP's signer).
    assert.ok(await verifyDidJws(resolver, await token({ exp: t - 3600 }), 'authentication'))
  })

  it('refuses JSON nested past the limit before resolving or verifying anything', async () => {
    const deep = handSigned(
      { alg: 'EdDSA', kid: alice.kid },
      JSON.parse(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`) as Record<string, unknown>,
      alice.privateKey,
    )
    const before = resolutions
    await assert.rejects(
      verifyDidJws(resolver, deep, 'authentication'),
      rejectedWith(/^its payload nests deeper than 64 levels/),
    )
    assert.equal(resolutions, before)
  })

  describe('without kid (RFC 7515 §4.1.4: kid is optional)', () => {
    // Documents of DIDs with two, or no, Ed25519 authentication keys (a did:web a holder runs).
    const bob = holder()
    const carol = holder()
    const { publicKey: p256 } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const docs: Record<string, Record<string, unknown>> = {
      'did:web:two.example': {
        id: 'did:web:two.example',
        verificationMethod: [
          {
            id: '#a',
            type: 'JsonWebKey2020',
            controller: 'did:web:two.example',
            publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bob.raw).toString('base64url') },
          },
          {
            id: '#b',
            type: 'JsonWebKey2020',
            controller: 'did:web:two.example',
            publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(carol.raw).toString('base64url') },
          },
        ],
        authentication: ['#a', '#b'],
        assertionMethod: ['#a'],
      },
      'did:web:p256.example': {
        id: 'did:web:p256.example',
        verificationMethod: [
          {
            id: 'did:web:p256.example#p',
            type: 'JsonWebKey2020',
            controller: 'did:web:p256.example',
            publicKeyJwk: p256.export({ format: 'jwk' }),
          },
        ],
        authentication: ['did:web:p256.example#p'],
      },
    }
    const stub: DidResolver = {
      resolve: async (did, options) =>
        docs[did]
          ? { didDocument: docs[did] as never, didDocumentMetadata: {}, didResolutionMetadata: {} }
          : resolver.resolve(did, options),
      legacyAssertionMethod: async () => undefined,
    } as DidResolver
    const signerOf = (h: ReturnType<typeof holder>) =>
      EdDSASigner(Buffer.from(h.privateKey.export({ format: 'jwk' }).d!, 'base64url'))
    const vp = {
      vp: {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        type: ['VerifiablePresentation'],
        verifiableCredential: [],
      },
    }

    it('verifies a did-jwt-vc VP (header {alg, typ}) by the one authentication key of the DID in iss', async () => {
      const jwt = await createVerifiablePresentationJwt(
        vp,
        { did: alice.did, signer: signerOf(alice), alg: 'EdDSA' },
        { challenge: 'n-1', domain: 'did:key:zVerifier' },
      )
      const verified = await verifyDidJws(stub, jwt, 'authentication', { currentDate: new Date(), clockTolerance: 60 })
      assert.deepEqual(verified.header, { alg: 'EdDSA', typ: 'JWT' })
      assert.equal(verified.did, alice.did)
      assert.equal(verified.kid, alice.kid)
      assert.equal(verified.payload.nonce, 'n-1')
      // A DID with one Ed25519 and no other EdDSA key is unambiguous for assertions too.
      assert.equal(
        (
          await verifyDidJws(
            stub,
            handSigned({ alg: 'EdDSA', typ: 'JWT' }, { iss: 'did:web:two.example' }, bob.privateKey),
            'assertionMethod',
          )
        ).kid,
        'did:web:two.example#a',
      )
    })

    it('refuses a DID with several or no keys for the alg, naming the DID and the count', async () => {
      const two = handSigned({ alg: 'EdDSA' }, { iss: 'did:web:two.example' }, bob.privateKey)
      await assert.rejects(
        verifyDidJws(stub, two, 'authentication'),
        rejectedWith(
          /^the header has no kid and did:web:two\.example has 2 authentication keys for EdDSA: without kid exactly one is accepted$/,
        ),
      )
      const none = handSigned({ alg: 'EdDSA' }, { iss: 'did:web:p256.example' }, bob.privateKey)
      await assert.rejects(
        verifyDidJws(stub, none, 'authentication'),
        rejectedWith(/^the header has no kid and did:web:p256\.example has 0 authentication keys for EdDSA/),
      )
    })

    it('refuses a wrong signature, and an iss that is no DID', async () => {
      const forged = await createVerifiablePresentationJwt(vp, {
        did: alice.did,
        signer: signerOf(mallory),
        alg: 'EdDSA',
      })
      await assert.rejects(
        verifyDidJws(stub, forged, 'authentication'),
        rejectedWith(new RegExp(`^the signature does not verify with ${alice.kid}$`)),
      )
      for (const iss of [undefined, 'https://alice.example', `${alice.kid}`, 42]) {
        await assert.rejects(
          verifyDidJws(stub, handSigned({ alg: 'EdDSA' }, { iss }, alice.privateKey), 'authentication'),
          rejectedWith(/^the header has no kid and iss is not a DID/),
        )
      }
    })
  })
})
