/**
 * Each format's `status`: where its serialization keeps the status reference, handed to the
 * status checker as is (the wallet's later reading of an import, imported-status-refresher.ts).
 * The checker is a recorder here: what it does with the reference is tested with real lists in
 * wallet-import-status, vcdm2-jose and sd-jwt-vc.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { jwtVcJson } from '../../src/modules/credentials/formats/jwt-vc-json/jwt-vc-json.format.js'
import { sdJwtVcFormat } from '../../src/modules/credentials/formats/sd-jwt-vc/sd-jwt-vc.format.js'
import { vcJose } from '../../src/modules/credentials/formats/vc-jose/vc-jose.format.js'
import type { DidResolver } from '../../src/modules/did/did-resolver.js'
import type { StatusChecker } from '../../src/modules/status-list/status-check.js'

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const jwt = (header: Record<string, unknown>, payload: Record<string, unknown>) => `${b64(header)}.${b64(payload)}.c2ln`
const ENTRY = {
  type: 'BitstringStatusListEntry',
  statusPurpose: 'revocation',
  statusListIndex: '7',
  statusListCredential: 'https://issuer.example/lists/1',
}
const TOKEN_REF = { idx: 7, uri: 'https://issuer.example/lists/1/token' }

function recorder() {
  const calls: Array<[string, unknown, string]> = []
  const status = {
    check: async (entry: unknown, issuer: string) => (
      calls.push(['bitstring', entry, issuer]), { state: 'revoked' as const }
    ),
    checkToken: async (reference: unknown, issuer: string) => (
      calls.push(['token', reference, issuer]), { state: 'revoked' as const }
    ),
  } as unknown as StatusChecker
  return { calls, ctx: { status } }
}

describe('credential formats: the status reference each keeps', () => {
  it("jwt_vc_json: the vc claim's credentialStatus", async () => {
    const { calls, ctx } = recorder()
    const item = jwt({ alg: 'EdDSA' }, { iss: 'did:example:i', vc: { credentialStatus: ENTRY } })
    assert.deepEqual(await jwtVcJson.status(item, 'did:example:i', ctx), { state: 'revoked' })
    assert.deepEqual(calls, [['bitstring', ENTRY, 'did:example:i']])
  })

  it("vc+jwt: the payload's own credentialStatus", async () => {
    const { calls, ctx } = recorder()
    const item = jwt({ alg: 'EdDSA', typ: 'vc+jwt' }, { issuer: 'did:example:i', credentialStatus: ENTRY })
    assert.deepEqual(await vcJose.status(item, 'did:example:i', ctx), { state: 'revoked' })
    assert.deepEqual(calls, [['bitstring', ENTRY, 'did:example:i']])
  })

  it('dc+sd-jwt: status.status_list, read as a Token Status List; none means not revocable', async () => {
    const format = sdJwtVcFormat({
      resolver: {} as DidResolver,
      httpGet: async () => ({ status: 404, headers: {}, body: new Uint8Array(), url: '' }),
      publicBaseUrl: 'https://service.example',
    })
    const { calls, ctx } = recorder()
    const item = `${jwt({ alg: 'ES256', typ: 'dc+sd-jwt' }, { iss: 'https://issuer.example', status: { status_list: TOKEN_REF } })}~`
    assert.deepEqual(await format.status(item, 'https://issuer.example', ctx), { state: 'revoked' })
    assert.deepEqual(calls, [['token', TOKEN_REF, 'https://issuer.example']])
    const unrevocable = `${jwt({ alg: 'ES256', typ: 'dc+sd-jwt' }, { iss: 'https://issuer.example' })}~`
    assert.deepEqual(await format.status(unrevocable, 'https://issuer.example', ctx), { state: 'active' })
    assert.equal(calls.length, 1)
  })
})
