/**
 * A Token Status List fetched from another issuer (draft-ietf-oauth-status-list §5.1) is read with
 * the service's clock and CLOCK_SKEW_SECONDS on its exp (RFC 7519 §4.1.4): one that expired a few
 * seconds ago by this clock, because the issuer's runs behind, is still read.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { describe, it } from 'node:test'
import { createHeaderAndPayload, StatusList } from '@owf/token-status-list'
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
const URI = 'https://status.example/lists/1'

async function issuerServing(exp: number): Promise<{ did: string; httpGet: HttpGet }> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const x = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
  const did = `did:key:${base58btc.encode(Uint8Array.from([0xed, 0x01, ...x]))}`
  const { header, payload } = createHeaderAndPayload(
    new StatusList([0, 1, 0, 0, 0, 0, 0, 0], 1),
    { iss: did, sub: URI, iat: exp - 600, exp },
    { alg: 'EdDSA', typ: 'statuslist+jwt', kid: `${did}#${did.slice(8)}` },
  )
  const jwt = await new jose.SignJWT(payload as jose.JWTPayload)
    .setProtectedHeader(header as jose.JWTHeaderParameters)
    .sign(privateKey)
  const httpGet: HttpGet = async (url) => ({
    status: url === URI ? 200 : 404,
    headers: {},
    body: new TextEncoder().encode(jwt),
    url,
  })
  return { did, httpGet }
}

const checker = (httpGet: HttpGet, skewSeconds?: number) =>
  new StatusChecker({
    db: {} as Database,
    publicBaseUrl: 'https://service.example',
    httpGet,
    resolver: createDidResolver({ httpGet, lookupLocal: async () => undefined }),
    formats: createFormatRegistry([vcJose, jwtVcJson]),
    issuerOf: async () => undefined,
    now: () => NOW,
    ...(skewSeconds === undefined ? {} : { skewSeconds }),
  })

describe('a remote Token Status List and the clock skew', () => {
  it('is read when it expired 30 s ago with a 60 s skew, and not with a 10 s one', async () => {
    const { did, httpGet } = await issuerServing(Math.floor(NOW.getTime() / 1000) - 30)
    assert.deepEqual(await checker(httpGet, 60).checkToken({ idx: 1, uri: URI }, did), { state: 'revoked' })
    assert.deepEqual(await checker(httpGet, 60).checkToken({ idx: 0, uri: URI }, did), { state: 'active' })
    const strict = await checker(httpGet, 10).checkToken({ idx: 1, uri: URI }, did)
    assert.equal(strict.state, 'unknown')
    assert.match((strict as { reason: string }).reason, /exp/)
  })

  it("reads its exp against the service's clock, not the machine's", async () => {
    // Valid until an hour after NOW, years ago by the machine's clock: the service's clock decides.
    const { did, httpGet } = await issuerServing(Math.floor(NOW.getTime() / 1000) + 3600)
    assert.deepEqual(await checker(httpGet, 0).checkToken({ idx: 1, uri: URI }, did), { state: 'revoked' })
  })
})
