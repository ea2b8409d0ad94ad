import assert from 'node:assert/strict'
import { verify, X509Certificate } from 'node:crypto'
import { describe, it } from 'node:test'
import { inflateSync } from 'node:zlib'
import { StatusList } from '@owf/token-status-list'
import { Decoder, encode } from 'cbor-x'
import {
  readTokenStatusListCwt,
  STATUS_LIST_CWT_MEDIA_TYPE,
  signTokenStatusListCwt,
} from '../../src/modules/status-list/token-status-list-cwt.js'
import { acceptQuality, asksForCwt } from '../../src/modules/status-list/status-list-accept.js'
import { makeTestChain } from '../helpers/mdoc-test-chain.js'

const cbor = new Decoder({ mapsAsObjects: false })

/** A Document Signer of a test IACA, as the certificates module hands one out. */
async function testSigner() {
  const chain = await makeTestChain()
  return { issuerDid: 'did:example:issuer', privateKey: chain.dsPrivateKey, chain: [chain.dsDer], root: chain.iacaDer }
}
const URI = 'https://issuer.example/api/status-lists/abc/token'
const IAT = 1_800_000_000
const claims = { uri: URI, iat: IAT, exp: IAT + 3600, ttl: 30 }

/** W3C order (MSB-first within a byte), as the service stores the list. */
function w3cBits(length: number, set: number[]): Uint8Array {
  const bits = new Uint8Array(length)
  for (const i of set) bits[i >> 3]! |= 0x80 >> (i & 7)
  return bits
}

/** The test's own COSE_Sign1 reader (RFC 9052 §4.2, §4.4) with cbor-x and node:crypto, not the production path. */
function independentlyVerify(bytes: Uint8Array, dsCertificate: Uint8Array) {
  // RFC 9052 §4.2: tag 18 is the single byte 0xd2 (RFC 8949 major type 6). Stripped by hand, since
  // @owf/cose registers a cbor-x extension for the tag that would hand back its own Sign1.
  assert.equal(bytes[0], 0xd2, 'COSE_Sign1 tag 18')
  const decoded = cbor.decode(bytes.subarray(1)) as unknown
  assert.ok(Array.isArray(decoded) && decoded.length === 4, 'a COSE_Sign1 array of four')
  const [protectedBytes, unprotected, payload, signature] = decoded as [
    Uint8Array,
    Map<number, unknown>,
    Uint8Array,
    Uint8Array,
  ]
  // RFC 9052 §4.4 Sig_structure. Buffers: cbor-x writes a bare Uint8Array as an RFC 8746 typed array (tag 64).
  const sigStructure = encode(['Signature1', Buffer.from(protectedBytes), Buffer.alloc(0), Buffer.from(payload)])
  const key = new X509Certificate(dsCertificate).publicKey
  const valid = verify('sha256', sigStructure, { key, dsaEncoding: 'ieee-p1363' }, signature)
  return {
    valid,
    protectedHeaders: cbor.decode(protectedBytes) as Map<number, unknown>,
    unprotected,
    claims: cbor.decode(payload) as Map<number, unknown>,
  }
}

describe('Token Status List in CWT form (draft-ietf-oauth-status-list §5.2)', () => {
  it('is a COSE_Sign1 ES256 over the claims, verified by an independent reader with the DS key', async () => {
    const signer = await testSigner()
    const set = [0, 7, 9, 1000, 131_071]
    const bytes = await signTokenStatusListCwt(w3cBits(16_384, set), claims, signer)
    const read = independentlyVerify(bytes, signer.chain[0]!)
    assert.equal(read.valid, true, 'ES256 signature over Sig_structure')
    assert.equal(read.protectedHeaders.get(1), -7)
    assert.equal(read.protectedHeaders.get(16), STATUS_LIST_CWT_MEDIA_TYPE)
    const x5chain = read.protectedHeaders.get(33) ?? read.unprotected.get(33)
    assert.deepEqual(new Uint8Array(x5chain as Uint8Array), signer.chain[0])
    assert.deepEqual(
      [...read.claims.keys()].sort((a, b) => Number(a) - Number(b)),
      [2, 4, 6, 65533, 65534],
    )
    assert.equal(read.claims.get(2), URI)
    assert.equal(read.claims.get(6), IAT)
    assert.equal(read.claims.get(4), IAT + 3600)
    assert.equal(read.claims.get(65534), 30)
    const statusList = read.claims.get(65533) as Map<string, unknown>
    assert.deepEqual([...statusList.keys()], ['bits', 'lst'])
    assert.equal(statusList.get('bits'), 1)
    const lst = statusList.get('lst') as Uint8Array
    assert.equal(lst[0], 0x78, 'ZLIB (RFC 1950) header')
    // §4.1: index i is bit (i mod 8) of byte ⌊i/8⌋ counted from the least significant bit.
    const raw = inflateSync(lst)
    assert.equal(raw.length, 16_384)
    const at = (i: number) => (raw[i >> 3]! >> (i & 7)) & 1
    for (const i of set) assert.equal(at(i), 1, `index ${i} set`)
    for (const i of [1, 6, 8, 10, 999, 1001, 131_070]) assert.equal(at(i), 0, `index ${i} unset`)
    // And as the status list library reads `lst`.
    const list = StatusList.decompressStatusListFromBytes(lst, 1)
    for (const i of set) assert.equal(list.getStatus(i), 1)
    assert.equal(list.getStatus(8), 0)
  })

  it('reads back through readTokenStatusListCwt, exposing the chain to the trust decision', async () => {
    const signer = await testSigner()
    const bytes = await signTokenStatusListCwt(w3cBits(16, [3, 12]), claims, signer)
    let seen: Uint8Array[] = []
    const token = await readTokenStatusListCwt(bytes, {
      chain: (chain) => {
        seen = chain
        return true
      },
    })
    assert.deepEqual(
      seen.map((c) => new Uint8Array(c)),
      signer.chain,
    )
    assert.deepEqual(
      { sub: token.sub, iat: token.iat, exp: token.exp, ttl: token.ttl },
      { sub: URI, iat: IAT, exp: IAT + 3600, ttl: 30 },
    )
    assert.deepEqual(
      Array.from({ length: 16 }, (_, i) => token.statusAt(i)),
      [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
    )
    await assert.rejects(readTokenStatusListCwt(bytes, { chain: () => false }), /not trusted/)
  })

  it('fails verification when a byte of the payload or signature is flipped', async () => {
    const signer = await testSigner()
    const bytes = await signTokenStatusListCwt(w3cBits(16, [3]), claims, signer)
    const trustAll = { chain: () => true }
    // The URI's bytes sit inside the payload; flip one of them, and the signature's last byte.
    const uriAt = Buffer.from(bytes).indexOf(Buffer.from(URI))
    assert.ok(uriAt > 0)
    for (const position of [uriAt + 5, bytes.length - 1]) {
      const tampered = new Uint8Array(bytes)
      tampered[position]! ^= 0x01
      assert.equal(independentlyVerify(tampered, signer.chain[0]!).valid, false, `independent, byte ${position}`)
      await assert.rejects(readTokenStatusListCwt(tampered, trustAll), /signature does not verify/)
    }
  })

  it('refuses a token signed by another key than its leaf certificate, and what is not COSE', async () => {
    const signer = await testSigner()
    const other = await testSigner()
    const forged = await signTokenStatusListCwt(w3cBits(16, []), claims, {
      privateKey: other.privateKey,
      chain: signer.chain,
    })
    assert.equal(independentlyVerify(forged, signer.chain[0]!).valid, false)
    await assert.rejects(readTokenStatusListCwt(forged, { chain: () => true }), /signature does not verify/)
    await assert.rejects(readTokenStatusListCwt(new Uint8Array([1, 2, 3]), { chain: () => true }), /not a COSE_Sign1/)
    await assert.rejects(
      signTokenStatusListCwt(w3cBits(16, []), claims, { ...signer, chain: [] }),
      /no certificate chain/,
    )
  })
})

describe('choosing the form from Accept (RFC 9110 §12.5.1)', () => {
  it('asks for the CWT form only when it ranks above the JWT form', () => {
    const cases: [string | undefined, boolean][] = [
      [undefined, false],
      ['', false],
      ['*/*', false],
      ['application/*', false],
      ['application/json', false],
      ['application/statuslist+jwt', false],
      ['application/statuslist+cwt', true],
      ['Application/StatusList+CWT', true],
      ['application/statuslist+cwt, */*;q=0.1', true],
      ['application/statuslist+cwt, application/statuslist+jwt', false],
      ['application/statuslist+cwt;q=0.5, application/statuslist+jwt', false],
      ['application/statuslist+jwt;q=0.2, application/statuslist+cwt', true],
      ['application/statuslist+cwt;q=0', false],
      ['application/statuslist+cwt;q=abc', false],
    ]
    for (const [accept, cwt] of cases) assert.equal(asksForCwt(accept), cwt, String(accept))
    assert.equal(acceptQuality('text/*;q=0.3, */*;q=0.1', 'text/html'), 0.3)
  })
})
