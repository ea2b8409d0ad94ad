/**
 * A W3C Bitstring Status List fetched from another issuer is read only while it is valid
 * (Bitstring Status List §3.2: a list past its `validUntil` raises STATUS_VERIFICATION_ERROR;
 * VC-JOSE-COSE §3.1.1 and RFC 7519 §4.1.4 for `exp`), judged by the service's clock with
 * CLOCK_SKEW_SECONDS: a stale list from a server that keeps serving it must not vouch for a credential.
 * The list is made with Digital Bazaar's vc-bitstring-status-list and signed with jose.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { describe, it } from 'node:test'
import { createList } from '@digitalbazaar/vc-bitstring-status-list'
import * as jose from 'jose'
import { base58btc } from 'multiformats/bases/base58'
import type { HttpGet } from '../../src/adapters/http-out/guarded-fetch.js'
import type { Database } from '../../src/db/database.js'
import { createFormatRegistry } from '../../src/modules/credentials/formats/format-registry.js'
import { jwtVcJson } from '../../src/modules/credentials/formats/jwt-vc-json/jwt-vc-json.format.js'
import { vcJose } from '../../src/modules/credentials/formats/vc-jose/vc-jose.format.js'
import { createDidResolver } from '../../src/modules/did/did-resolver.js'
import { StatusChecker } from '../../src/modules/status-list/status-check.js'

const NOW = new Date('2020-01-01T10:00:00Z')
const NOW_S = Math.floor(NOW.getTime() / 1000)
const URL_ = 'https://status.example/lists/1'
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000', '')

/** An issuer serving one VCDM 2.0 `vc+jwt` status list with bit 1 set, valid over [from, until] (and `exp` when given). */
async function issuerServing(window: {
  validFrom?: number
  validUntil?: number
  exp?: number
}): Promise<{ did: string; httpGet: HttpGet }> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const x = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
  const did = `did:key:${base58btc.encode(Uint8Array.from([0xed, 0x01, ...x]))}`
  const list = await createList({ length: 131072 })
  list.setStatus(1, true)
  const credential = {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    id: URL_,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    issuer: did,
    ...(window.validFrom !== undefined ? { validFrom: iso(window.validFrom) } : {}),
    ...(window.validUntil !== undefined ? { validUntil: iso(window.validUntil) } : {}),
    credentialSubject: {
      id: `${URL_}#list`,
      type: 'BitstringStatusList',
      statusPurpose: 'revocation',
      encodedList: await list.encode(),
    },
  }
  const jwt = await new jose.SignJWT({ ...credential, ...(window.exp !== undefined ? { exp: window.exp } : {}) })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'vc+jwt', kid: `${did}#${did.slice(8)}` })
    .sign(privateKey)
  const httpGet: HttpGet = async (url) => ({
    status: url === URL_ ? 200 : 404,
    headers: {},
    body: new TextEncoder().encode(jwt),
    url,
  })
  return { did, httpGet }
}

const checker = (httpGet: HttpGet, skewSeconds = 60) =>
  new StatusChecker({
    db: {} as Database,
    publicBaseUrl: 'https://service.example',
    httpGet,
    resolver: createDidResolver({ httpGet, lookupLocal: async () => undefined }),
    formats: createFormatRegistry([vcJose, jwtVcJson]),
    issuerOf: async () => undefined,
    now: () => NOW,
    skewSeconds,
  })

const entry = (index: number) => ({
  type: 'BitstringStatusListEntry',
  statusPurpose: 'revocation',
  statusListIndex: String(index),
  statusListCredential: URL_,
})

describe('a remote W3C Bitstring Status List and its validity', () => {
  it('is read while valid by the service clock', async () => {
    const { did, httpGet } = await issuerServing({
      validFrom: NOW_S - 3600,
      validUntil: NOW_S + 3600,
      exp: NOW_S + 3600,
    })
    assert.deepEqual(await checker(httpGet).check(entry(1), did), { state: 'revoked' })
    assert.deepEqual(await checker(httpGet).check(entry(0), did), { state: 'active' })
  })

  it('is not read past its validUntil: the status is unknown, not active', async () => {
    const { did, httpGet } = await issuerServing({ validFrom: NOW_S - 7200, validUntil: NOW_S - 3600 })
    const state = await checker(httpGet).check(entry(0), did)
    assert.equal(state.state, 'unknown')
    assert.match((state as { reason: string }).reason, /expired|validUntil/)
  })

  it('is not read before its validFrom', async () => {
    const { did, httpGet } = await issuerServing({ validFrom: NOW_S + 3600 })
    assert.equal((await checker(httpGet).check(entry(0), did)).state, 'unknown')
  })

  it("reads exp by the service's clock with the skew: 30 s past passes at 60 s, not at 10 s", async () => {
    const { did, httpGet } = await issuerServing({ exp: NOW_S - 30 })
    assert.deepEqual(await checker(httpGet, 60).check(entry(1), did), { state: 'revoked' })
    assert.equal((await checker(httpGet, 10).check(entry(1), did)).state, 'unknown')
  })
})
