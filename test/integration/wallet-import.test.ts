import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { HttpGet } from '../../src/adapters/http-out/guarded-fetch.js'
import { DbKeyStore } from '../../src/modules/keys/key-store.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { openAsHolder } from '../helpers/hpke-holder.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { foreignCredential, signJwt, tamper } from '../helpers/wallet-fixtures.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'holder_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}
const LISTING_FIELDS = [
  'id',
  'issuer_did',
  'issuer_name',
  'credential_type',
  'credential_preview',
  'credential_data',
  'ipfs_hash',
  'status',
  'signature_type',
  'evidence_attachments',
  'extensions',
]

describe('wallet import and holder-side revocation', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const external = new DidClient()
  const holder = new DidClient()
  const other = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let otherToken: string
  let verifierToken: string
  let schemaId: string
  const remoteUrls: string[] = []
  // Remote status lists are unreachable in this test: the status of such a credential is unknown.
  const httpGet: HttpGet = async (url) => {
    remoteUrls.push(url)
    return { status: 404, headers: {}, body: new Uint8Array(), url }
  }

  before(async () => {
    t = await createTestApp({ httpGet })
    await issuer.setUp(t.app, 'Pass Office')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    otherToken = await other.login(t.app)
    verifierToken = await verifier.login(t.app)
  })
  after(() => t.close())

  const importJwt = (jwt: unknown, token = holderToken, did = holder.did) =>
    t.app.inject({
      method: 'POST',
      url: `/api/wallet/${did}/credentials/import`,
      headers: bearer(token),
      payload: { credential_jwt: jwt },
    })
  const list = async (token = holderToken, did = holder.did): Promise<Json> => {
    const res = await callAs(t.app, 'GET', `/api/wallet/${did}/credentials`, token)
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  const issueLocal = async (subject = holder.did): Promise<{ id: string; jwt: string }> => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Pass',
      schema_id: schemaId,
      subject_did: subject,
      attributes: { holder_name: 'H' },
    })
    assert.equal(res.statusCode, 201, res.body)
    return { id: res.json().credential.id, jwt: res.json().credential.jwt }
  }
  const refusal = (res: { statusCode: number; body: string; json(): Json }, reason: string) => {
    assert.equal(res.statusCode, 422, res.body)
    assert.equal(res.json().success, false)
    assert.equal(res.json().details.reason, reason)
    assert.ok(res.json().message.length > 10)
  }

  it('imports a credential signed by an outside did:key issuer; it shows in the listing with the spec fields', async () => {
    const jwt = foreignCredential(external, {
      subject: holder.did,
      issuerName: 'Badge Co',
      attributes: { given_name: 'Ada', level: 3, photo: { big: true } },
      exp: Math.floor(Date.now() / 1000) + 86_400,
    })
    const res = await importJwt(jwt)
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.restored, false)
    const c = body.credential
    for (const field of LISTING_FIELDS) assert.ok(field in c, field)
    assert.match(c.id, /^aly:[0-9a-f-]{36}$/)
    assert.equal(c.issuer_did, external.did)
    assert.equal(c.issuer_name, 'Badge Co')
    assert.equal(c.credential_type, 'ExternalBadge')
    assert.deepEqual(c.credential_data, { given_name: 'Ada', level: 3, photo: { big: true } })
    assert.deepEqual(c.credential_preview, { given_name: 'Ada', level: 3 })
    assert.equal(c.status, 'active')
    assert.equal(c.source, 'imported')
    assert.equal(c.owner_did, holder.did)
    assert.equal(c.jwt, jwt)
    assert.equal(c.kyber_encrypted, true)
    assert.equal(c.withdrawn, false)
    assert.ok(c.expiration_date)
    assert.match(c.credential_hash, /^[0-9a-f]{64}$/)
    // The material is sealed in the content store: the JWT is not there in clear.
    assert.equal(await t.deps.content.has(c.ipfs_hash), true)
    const stored = Buffer.from(await t.deps.content.get(c.ipfs_hash)).toString('utf8')
    // Not 'Ada': kilobytes of base64 ciphertext hold any three letters by chance now and then.
    assert.ok(!stored.includes(jwt.split('.')[2]!), 'the JWT is not stored in clear')
    // The same HPKE envelope as issued material: the holder's key opens it with any implementation.
    const keys = new DbKeyStore(t.deps.database.db, t.deps.masterKey)
    const [kemKey] = await keys.list(holder.did, 'holder-mlkem768')
    const material = JSON.parse(
      Buffer.from(
        await openAsHolder(await keys.openPrivateKey(kemKey!.kid), JSON.parse(stored), holder.did, c.id),
      ).toString(),
    )
    assert.deepEqual([material.format, material.id, material.jwt], ['credential-material/v1', c.id, jwt])

    const listed = await list()
    assert.deepEqual(
      listed.data.map((x: Json) => x.id),
      [c.id],
    )
    assert.equal(listed.data[0].source, 'imported')
    // Nobody else sees it.
    assert.equal((await list(otherToken, other.did)).count, 0)

    // The same credential again: 409, naming the wallet copy.
    const again = await importJwt(jwt)
    assert.equal(again.statusCode, 409, again.body)
    assert.equal(again.json().details.credential_id, c.id)
  })

  it('refuses a tampered credential (422, signature), garbage (400) and a JWT that is no credential (422)', async () => {
    const jwt = foreignCredential(external, { subject: holder.did, attributes: { level: 1 } })
    refusal(await importJwt(tamper(jwt, (p) => ((p.vc as Json).credentialSubject.level = 99))), 'signature')
    // Signed by someone else than the kid says.
    const forged = foreignCredential(other, { subject: holder.did })
    const [h] = jwt.split('.')
    refusal(await importJwt(`${h}.${forged.split('.')[1]}.${forged.split('.')[2]}`), 'signature')

    for (const garbage of ['not-a-jwt', 'a.b.c', '....', `${Buffer.from('{}').toString('base64url')}.x`]) {
      const res = await importJwt(garbage)
      assert.equal(res.statusCode, 400, `${garbage}: ${res.body}`)
      assert.match(res.json().message, /not a JWT/)
    }
    refusal(await importJwt(signJwt(external, { iss: external.did, sub: holder.did })), 'malformed')
  })

  it('refuses a credential issued to another subject, without a subject, expired or not yet valid', async () => {
    refusal(await importJwt(foreignCredential(external, { subject: other.did })), 'subject')
    // sub and credentialSubject.id disagree.
    refusal(await importJwt(foreignCredential(external, { subject: holder.did, sub: other.did })), 'subject')
    refusal(await importJwt(foreignCredential(external, { subject: null, sub: null })), 'subject')
    const now = Math.floor(Date.now() / 1000)
    refusal(await importJwt(foreignCredential(external, { subject: holder.did, exp: now - 3600 })), 'expired')
    refusal(await importJwt(foreignCredential(external, { subject: holder.did, nbf: now + 3600 })), 'not_yet_valid')
    // vc.issuer differs from the signer.
    const claimed = foreignCredential(external, {
      subject: holder.did,
      vc: { type: ['VerifiableCredential', 'X'], issuer: issuer.did, credentialSubject: { id: holder.did } },
    })
    refusal(await importJwt(claimed), 'issuer')
  })

  it('refuses a credential its issuer revoked (422, revoked) and one whose status cannot be read', async () => {
    const local = await issueLocal()
    assert.equal(
      (await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${local.id}/revoke`, issuer.token))
        .statusCode,
      200,
    )
    const res = await importJwt(local.jwt)
    refusal(res, 'revoked')
    assert.match(res.json().message, /revoked/)

    const status = {
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '7',
      statusListCredential: 'https://status.example/lists/1',
    }
    refusal(await importJwt(foreignCredential(external, { subject: holder.did, status })), 'status_unknown')
    assert.ok(remoteUrls.includes('https://status.example/lists/1'))
  })

  it('a credential issued here: 409 while in the wallet, restored under its own id after a delete', async () => {
    const local = await issueLocal()
    assert.equal((await importJwt(local.jwt)).statusCode, 409)
    assert.equal(
      (await callAs(t.app, 'DELETE', `/api/wallet/${holder.did}/credentials/${local.id}`, holderToken)).statusCode,
      200,
    )
    assert.ok(!(await list()).data.some((c: Json) => c.id === local.id))
    const res = await importJwt(local.jwt)
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().restored, true)
    assert.equal(res.json().credential.id, local.id)
    assert.equal(res.json().credential.source, 'issued')
    assert.ok((await list()).data.some((c: Json) => c.id === local.id))
    // Another holder cannot import it (not its subject).
    refusal(await importJwt(local.jwt, otherToken, other.did), 'subject')
  })

  it('deletes an imported credential; it can then be imported again', async () => {
    const jwt = foreignCredential(external, { subject: holder.did, type: 'Deletable' })
    const first = (await importJwt(jwt)).json().credential
    assert.equal(
      (await callAs(t.app, 'DELETE', `/api/wallet/${holder.did}/credentials/${first.id}`, otherToken)).statusCode,
      403,
    )
    assert.equal(
      (await callAs(t.app, 'DELETE', `/api/wallet/${other.did}/credentials/${first.id}`, otherToken)).statusCode,
      404,
    )
    assert.equal(
      (await callAs(t.app, 'DELETE', `/api/wallet/${holder.did}/credentials/${first.id}`, holderToken)).statusCode,
      200,
    )
    assert.equal(
      (await callAs(t.app, 'DELETE', `/api/wallet/${holder.did}/credentials/${first.id}`, holderToken)).statusCode,
      404,
    )
    const second = await importJwt(jwt)
    assert.equal(second.statusCode, 201, second.body)
    assert.notEqual(second.json().credential.id, first.id)
  })

  it('holder-side revocation withdraws the credential: listed as withdrawn, 409 twice, refused in a presentation', async () => {
    const local = await issueLocal()
    const url = (id: string, did = holder.did) => `/api/wallet/${did}/credentials/${id}/revoke`
    assert.equal((await callAs(t.app, 'POST', url(local.id), otherToken)).statusCode, 403)
    assert.equal((await callAs(t.app, 'POST', url(local.id, other.did), otherToken)).statusCode, 404)
    assert.equal(
      (await callAs(t.app, 'POST', url('aly:00000000-0000-4000-8000-000000000000'), holderToken)).statusCode,
      404,
    )
    assert.equal((await callAs(t.app, 'POST', url(local.id), holderToken, { reason: 42 })).statusCode, 400)
    const res = await callAs(t.app, 'POST', url(local.id), holderToken, { reason: 'lost my phone' })
    assert.equal(res.statusCode, 200, res.body)
    const c = res.json().credential
    assert.equal(c.withdrawn, true)
    assert.equal(c.withdrawal_reason, 'lost my phone')
    assert.ok(c.withdrawn_at)
    // The issuer's status is not the holder's to change.
    assert.equal(c.status, 'active')
    assert.equal(
      (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials/${local.id}`, issuer.token)).json().credential
        .status,
      'active',
    )
    assert.equal((await callAs(t.app, 'POST', url(local.id), holderToken)).statusCode, 409)
    assert.equal((await list()).data.find((x: Json) => x.id === local.id).withdrawn, true)

    // A presentation request cannot be answered with it.
    const created = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'PassCheck',
      required_credentials: [{ credential_type: 'Pass', issuer_did: issuer.did, required_attributes: ['holder_name'] }],
      purpose: 'Entry',
    })
    assert.equal(created.statusCode, 201, created.body)
    const request = created.json().request
    assert.equal(
      (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: request.id }))
        .statusCode,
      201,
    )
    const vp = signPresentation(holder, { aud: verifier.did, nonce: request.nonce, credentials: [local.jwt] })
    const approve = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${request.id}/approve`,
      holderToken,
      { credential_ids: [local.id], presentation_jwt: vp },
    )
    assert.equal(approve.statusCode, 400, approve.body)
    assert.match(approve.json().message, /Not in your wallet/)
  })

  it('an imported credential can be presented', async () => {
    const jwt = foreignCredential(external, { subject: holder.did, type: 'Presentable' })
    const imported = (await importJwt(jwt)).json().credential
    const created = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'BadgeCheck',
      required_credentials: [
        { credential_type: 'Presentable', issuer_did: external.did, required_attributes: ['given_name'] },
      ],
      purpose: 'Badge',
    })
    const request = created.json().request
    await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: request.id })
    const vp = signPresentation(holder, { aud: verifier.did, nonce: request.nonce, credentials: [jwt] })
    const approve = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${request.id}/approve`,
      holderToken,
      { credential_ids: [imported.id], presentation_jwt: vp },
    )
    assert.equal(approve.statusCode, 201, approve.body)
  })

  it('checks the caller: no token 401, another DID 403, bad bodies 400', async () => {
    const jwt = foreignCredential(external, { subject: holder.did })
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/wallet/${holder.did}/credentials/import`,
          payload: { credential_jwt: jwt },
        })
      ).statusCode,
      401,
    )
    assert.equal((await importJwt(jwt, otherToken)).statusCode, 403)
    assert.equal((await importJwt(undefined)).statusCode, 400)
    assert.equal((await importJwt(42)).statusCode, 400)
    assert.equal((await importJwt('')).statusCode, 400)
    const noBody = await t.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/credentials/import`,
      headers: bearer(holderToken),
    })
    assert.equal(noBody.statusCode, 400)
  })
})
