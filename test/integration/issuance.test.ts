import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose'
import { base58btc } from 'multiformats/bases/base58'
import canonicalize from 'canonicalize'
import { initBbs, verify as verifyBbs } from '../../src/crypto/bbs/bbs-core.js'
import { decodeBbsVerificationMethod } from '../../src/crypto/bbs/bbs-key-text.js'
import { credentialMessages, type AnonCredentialContent } from '../../src/crypto/bbs/bbs-messages.js'
import { DbKeyStore } from '../../src/modules/keys/key-store.js'
import { DidClient } from '../helpers/did-client.js'
import { holderKemPair, openAsHolder } from '../helpers/hpke-holder.js'
import { callAs, DEGREE_SCHEMA, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { didWebUrl } from '../../src/modules/did/methods/did-web-method.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const ATTRS = {
  given_name: 'Ada',
  birth_date: '2001-02-03',
  gpa: 3.85,
  graduated: true,
  email: 'ada@uni.example',
  homepage: 'https://ada.example',
  address: { city: 'Zürich' },
  courses: ['Logic', 'Algebra'],
}

describe('issuance', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const rival = new IssuerActor()
  const holder = new DidClient()
  let schemaId: string
  let rivalSchemaId: string
  const issue = (body: object, token = issuer.token, did = issuer.did) =>
    callAs(t.app, 'POST', `/api/issuer/${did}/issue`, token, body)

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Uni')
    await rival.setUp(t.app, 'Rival')
    schemaId = await issuer.schema(t.app)
    rivalSchemaId = await rival.schema(t.app)
  })
  after(() => t.close())

  it('answers 201 with exactly the spec shape', async () => {
    const res = await issue({
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: ATTRS,
    })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(typeof body.message, 'string')
    const c = body.credential
    for (const key of [
      'credential',
      'jwt',
      'ipfs_hash',
      'ipfs_gateway_url',
      'credential_hash',
      'blockchain_tx_hash',
      'blockchain_tx',
      'id',
      'on_chain',
    ])
      assert.ok(key in c, key)
    const record = c.credential
    for (const key of [
      'id',
      'issuer_did',
      'owner_did',
      'credential_type',
      'schema_id',
      'credential_preview',
      'status',
      'signature_type',
      'kyber_encrypted',
      'evidence_attachments',
      'created_at',
    ])
      assert.ok(key in record, key)
    assert.match(record.id, /^aly:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.equal(c.id, record.id)
    assert.equal(record.issuer_did, issuer.did)
    assert.equal(record.owner_did, holder.did)
    assert.equal(record.schema_id, schemaId)
    assert.equal(record.status, 'active')
    assert.equal(record.signature_type, 'bbs+')
    assert.equal(record.kyber_encrypted, true)
    assert.deepEqual(record.evidence_attachments, [])
    assert.ok(!Number.isNaN(Date.parse(record.created_at)))
    assert.equal(c.on_chain, false)
    assert.equal(c.ipfs_gateway_url, `${t.config.publicBaseUrl}/api/ipfs/${c.ipfs_hash}`)
    assert.match(c.credential_hash, /^[0-9a-f]{64}$/)
    // The preview is a subset of the attributes.
    for (const [k, v] of Object.entries(record.credential_preview))
      assert.deepEqual(v, (ATTRS as Record<string, unknown>)[k])
    assert.ok(Object.keys(record.credential_preview).length > 0)
  })

  it('can be verified by an outsider: JWT-VC and BBS from the DID document, status from the status list', async () => {
    const res = await issue({
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: ATTRS,
    })
    const { jwt, credential_hash: hash, credential: record } = res.json().credential

    // 1. The signing DID is the issuer's did:web hosted here; its document is fetched from the
    // URL the did:web method gives (did:web spec §3.2), as any resolver would.
    const header = decodeProtectedHeader(jwt)
    assert.equal(header.alg, 'EdDSA')
    const signingDid = String(header.kid).split('#')[0]!
    assert.match(signingDid, /^did:web:service\.test:issuers:[0-9a-f]{32}$/)
    assert.equal(record.signing_did, signingDid)
    const docRes = await t.app.inject({ method: 'GET', url: new URL(didWebUrl(signingDid)).pathname })
    assert.equal(docRes.statusCode, 200)
    const doc = docRes.json()
    assert.equal(doc.id, signingDid)
    assert.deepEqual(doc.alsoKnownAs, [issuer.did])
    assert.ok(doc.assertionMethod.includes(header.kid), 'signing key is an assertion method')
    const method = doc.verificationMethod.find((m: { id: string }) => m.id === header.kid)
    const raw = base58btc.decode(method.publicKeyMultibase)
    assert.deepEqual([...raw.subarray(0, 2)], [0xed, 0x01])
    const key = await importJWK(
      { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw.subarray(2)).toString('base64url') },
      'EdDSA',
    )
    const { payload } = await jwtVerify(jwt, key, { issuer: signingDid, subject: holder.did })
    const vc = payload.vc as Json
    assert.equal(payload.jti, record.id)
    assert.deepEqual(vc.type, ['VerifiableCredential', 'UniversityDegree'])
    assert.deepEqual({ ...vc.credentialSubject, id: undefined }, { ...ATTRS, id: undefined })
    assert.equal(vc.credentialSubject.id, holder.did)
    // credential_hash: SHA-256 of the RFC 8785 form of the credential document.
    assert.equal(hash, createHash('sha256').update(canonicalize(vc)!).digest('hex'))

    // A tampered JWT fails.
    const [h, p, s] = jwt.split('.')
    const forged = JSON.parse(Buffer.from(p, 'base64url').toString())
    forged.vc.credentialSubject.gpa = 4.0
    await assert.rejects(jwtVerify(`${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${s}`, key))

    // 2. The status list credential, from the URL in the credential, signed by the issuer.
    const status = vc.credentialStatus
    assert.equal(status.type, 'BitstringStatusListEntry')
    assert.equal(status.statusPurpose, 'revocation')
    const readBit = async () => {
      const url = new URL(status.statusListCredential)
      const listRes = await t.app.inject({ method: 'GET', url: url.pathname })
      assert.equal(listRes.statusCode, 200)
      assert.match(String(listRes.headers['content-type']), /application\/vc\+jwt/)
      const listJwt = listRes.body
      const listKid = decodeProtectedHeader(listJwt).kid
      assert.ok(doc.assertionMethod.includes(listKid))
      // A VCDM 2.0 vc+jwt: the payload is the status-list credential (VC-JOSE-COSE §3.1.1).
      const { payload: listPayload } = await jwtVerify(listJwt, key, { issuer: signingDid, typ: 'vc+jwt' })
      assert.equal(listPayload.issuer, signingDid)
      const subject = (listPayload as Json).credentialSubject
      assert.equal(subject.type, 'BitstringStatusList')
      assert.equal(subject.encodedList[0], 'u')
      const bits = gunzipSync(Buffer.from(subject.encodedList.slice(1), 'base64url'))
      assert.ok(bits.length >= 16_384, 'at least 131,072 entries')
      const index = Number(status.statusListIndex)
      return (bits[index >> 3]! & (0x80 >> (index % 8))) !== 0
    }
    assert.equal(await readBit(), false)

    // 3. The BBS signature, with only the published key and params label.
    const bbs = record.anonymous_credential
    assert.ok(bbs, 'anonymous credential present')
    const bbsMethod = doc.verificationMethod.find((m: { id: string }) => m.id === bbs.verification_method)
    assert.ok(bbsMethod, 'BBS key published in the DID document')
    assert.ok(doc.assertionMethod.includes(bbsMethod.id))
    assert.equal(await verifyBbsFromDidDocument(bbsMethod, bbs.content, bbs.signature), true)
    const changed = structuredClone(bbs.content)
    changed.attributes.gpa = 3.9
    assert.equal(await verifyBbsFromDidDocument(bbsMethod, changed, bbs.signature), false)

    // 4. After revocation the published list says so.
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${record.id}/revoke`,
      issuer.token,
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    assert.equal(await readBit(), true)
  })

  it('leaves no plaintext attribute on the content store; the holder key in the key store opens it with any HPKE implementation', async () => {
    const secret = { ...ATTRS, given_name: 'Zebulon-Unique-Name', email: 'zebulon.secret@uni.example' }
    const res = await issue({
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: secret,
    })
    const { ipfs_hash: cid, id } = res.json().credential
    const stored = await t.app.inject({ method: 'GET', url: `/api/ipfs/${cid}` })
    assert.equal(stored.statusCode, 200)
    const text = stored.rawPayload.toString('latin1')
    for (const needle of ['Zebulon-Unique-Name', 'zebulon.secret', '2001-02-03', 'Algebra', holder.did])
      assert.ok(!text.includes(needle), needle)
    const envelope = JSON.parse(stored.body)
    assert.equal(envelope.format, 'sealed-envelope/v2')
    // The service-held ML-KEM seed, sealed in the key store, opens it with a second HPKE
    // implementation (and only for this holder and this credential id).
    const keys = new DbKeyStore(t.deps.database.db, t.deps.masterKey)
    const [kemKey] = await keys.list(holder.did, 'holder-mlkem768')
    assert.ok(kemKey)
    const seed = await keys.openPrivateKey(kemKey.kid)
    assert.equal(seed.length, 64)
    const material = JSON.parse(Buffer.from(await openAsHolder(seed, envelope, holder.did, id)).toString())
    assert.equal(material.format, 'credential-material/v1')
    assert.equal(material.id, id)
    assert.equal(material.credential_data.given_name, 'Zebulon-Unique-Name')
    assert.equal(material.jwt, res.json().credential.jwt)
    await assert.rejects(openAsHolder(seed, envelope, holder.did, 'aly:another'))
    await assert.rejects(openAsHolder(seed, envelope, issuer.did, id))
  })

  it("seals to the holder's own ML-KEM key once registered: only the holder can open it", async () => {
    const own = new DidClient()
    const ownToken = await own.login(t.app)
    // The holder's key pair is made by another HPKE implementation: the service only sees the public half.
    const pair = await holderKemPair()
    const url = `/api/wallet/${own.did}/encryption-key`
    assert.equal((await callAs(t.app, 'PUT', url, ownToken, { public_key: 'AAAA' })).statusCode, 400)
    // Right length, but coefficients of 0xFFF exceed q = 3329: fails the FIPS 203 §7.2 modulus check.
    const outOfRange = Buffer.alloc(1184, 0xff).toString('base64url')
    assert.equal((await callAs(t.app, 'PUT', url, ownToken, { public_key: outOfRange })).statusCode, 400)
    assert.equal(
      (await callAs(t.app, 'PUT', url, issuer.token, { public_key: Buffer.from(pair.publicKey).toString('base64url') }))
        .statusCode,
      403,
    )
    const put = await callAs(t.app, 'PUT', url, ownToken, {
      public_key: Buffer.from(pair.publicKey).toString('base64url'),
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().key.custody, 'holder')
    const res = await issue({
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: own.did,
      attributes: ATTRS,
    })
    const { ipfs_hash: cid, id } = res.json().credential
    const envelope = JSON.parse((await t.app.inject({ method: 'GET', url: `/api/ipfs/${cid}` })).body)
    const material = JSON.parse(Buffer.from(await openAsHolder(pair.privateKey, envelope, own.did, id)).toString())
    assert.deepEqual(material.credential_data, ATTRS)
    // The service holds no private key for this DID.
    const keys = new DbKeyStore(t.deps.database.db, t.deps.masterKey)
    assert.deepEqual(await keys.list(own.did, 'holder-mlkem768'), [])
  })

  it('refuses each wrong data type, a missing required attribute and an unknown one with 400 naming it', async () => {
    const wrong: Array<[string, unknown]> = [
      ['given_name', 42],
      ['gpa', '3.5'],
      ['graduated', 'true'],
      ['birth_date', '2001-13-40'],
      ['birth_date', 20010203],
      ['email', 'not-an-email'],
      ['homepage', 'not a url'],
      ['thesis', ''],
      ['address', ['not', 'an', 'object']],
      ['courses', { not: 'an array' }],
    ]
    for (const [name, value] of wrong) {
      const res = await issue({
        credential_type: 'UniversityDegree',
        schema_id: schemaId,
        subject_did: holder.did,
        attributes: { ...ATTRS, [name]: value },
      })
      assert.equal(res.statusCode, 400, `${name}=${JSON.stringify(value)}: ${res.body}`)
      assert.match(res.json().message, new RegExp(name))
    }
    const { given_name: _g, ...missing } = ATTRS
    const res = await issue({ credential_type: 'UniversityDegree', schema_id: schemaId, attributes: missing })
    assert.equal(res.statusCode, 400)
    assert.match(res.json().message, /given_name.*required/)
    const unknown = await issue({
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      attributes: { ...ATTRS, shoe_size: 44 },
    })
    assert.equal(unknown.statusCode, 400)
    assert.match(unknown.json().message, /shoe_size/)
  })

  it('refuses bad bodies, unknown or foreign schemas, evidence and extensions the schema does not allow', async () => {
    const base = { credential_type: 'UniversityDegree', schema_id: schemaId, attributes: ATTRS }
    const cases: Array<[object, RegExp]> = [
      [{ schema_id: schemaId, attributes: ATTRS }, /credential_type/],
      [{ credential_type: 'X', attributes: ATTRS }, /schema_id/],
      [{ credential_type: 'X', schema_id: schemaId }, /attributes/],
      [{ ...base, attributes: 'nope' }, /attributes/],
      [{ ...base, credential_type: 7 }, /credential_type/],
      [{ ...base, subject_did: 'not-a-did' }, /DID|did/],
      [{ ...base, schema_id: 'schema-unknown' }, /schema_id/],
      [{ ...base, schema_id: rivalSchemaId }, /schema_id/],
      [{ ...base, expiration_date: '2001-01-01T00:00:00Z' }, /expiration_date/],
      [{ ...base, expiration_date: 'tomorrow' }, /expiration_date/],
      [{ ...base, extensions: ['laser'] }, /laser/],
      [{ ...base, evidence_required: ['passport'] }, /passport/],
      [{ ...base, template_id: 'template-unknown' }, /template_id/],
      [
        {
          ...base,
          evidence: [
            {
              label: 'transcript',
              filename: 't.pdf',
              ipfs_hash: 'bafkreib2bhwgeyjbfkr7ra7vbo5rvwnfhzxn4uhw5d2z2nx2v5mlo3mpoi',
              gateway_url: 'https://x.example/t',
              content_type: 'application/pdf',
              size: 10,
            },
          ],
        },
        /not been uploaded/,
      ],
      [
        {
          ...base,
          evidence: [
            {
              label: 'transcript',
              filename: 't.pdf',
              ipfs_hash: 'not-a-cid',
              gateway_url: 'https://x.example/t',
              content_type: 'application/pdf',
              size: 10,
            },
          ],
        },
        /CID/,
      ],
      [{ ...base, evidence: [{ label: 'transcript', filename: 't.pdf' }] }, /evidence/],
    ]
    for (const [body, message] of cases) {
      const res = await issue(body)
      assert.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 120)}: ${res.body}`)
      assert.match(res.json().message, message)
    }
    // A schema that allows no evidence or extensions at all.
    const plain = await issuer.schema(t.app, {
      name: 'Plain',
      version: '1',
      attributes: [{ name: 'n', data_type: 'string' }],
    })
    const uploaded = await t.deps.content.put(Buffer.from('transcript bytes'))
    const evidence = [
      {
        label: 'transcript',
        filename: 't.pdf',
        ipfs_hash: uploaded.cid,
        gateway_url: 'https://x.example/t',
        content_type: 'application/pdf',
        size: 16,
      },
    ]
    const noEvidence = await issue({ credential_type: 'P', schema_id: plain, attributes: { n: 'x' }, evidence })
    assert.equal(noEvidence.statusCode, 400)
    assert.match(noEvidence.json().message, /does not allow evidence/)
    const noExt = await issue({
      credential_type: 'P',
      schema_id: plain,
      attributes: { n: 'x' },
      extensions: ['honours'],
    })
    assert.equal(noExt.statusCode, 400)
    // Allowed evidence that was uploaded, and an allowed extension, are accepted and recorded.
    const ok = await issue({
      ...base,
      evidence: [{ ...evidence[0]!, label: 'transcript' }],
      extensions: ['honours'],
      evidence_required: ['transcript'],
    })
    assert.equal(ok.statusCode, 201, ok.body)
    assert.deepEqual(ok.json().credential.credential.evidence_attachments, evidence)
    assert.deepEqual((decodeJwt(ok.json().credential.jwt).vc as Json).extensions, ['honours'])
  })

  it("refuses someone else's DID (403) and a missing token (401)", async () => {
    const body = { credential_type: 'UniversityDegree', schema_id: schemaId, attributes: ATTRS }
    assert.equal((await issue(body, rival.token, issuer.did)).statusCode, 403)
    assert.equal((await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, undefined, body)).statusCode, 401)
    const nobody = new DidClient()
    const token = await nobody.login(t.app)
    const res = await issue(body, token, nobody.did)
    assert.equal(res.statusCode, 404)
    assert.match(res.json().message, /issuer profile/)
  })

  it('issues JWT-VC only for a schema that opts out of BBS', async () => {
    const jwtOnly = await issuer.schema(t.app, { ...DEGREE_SCHEMA, version: 'jwt-only', anonymous_credentials: false })
    const res = await issue({
      credential_type: 'UniversityDegree',
      schema_id: jwtOnly,
      subject_did: holder.did,
      attributes: ATTRS,
    })
    assert.equal(res.statusCode, 201, res.body)
    const one = await callAs(
      t.app,
      'GET',
      `/api/issuer/${issuer.did}/credentials/${res.json().credential.id}`,
      issuer.token,
    )
    assert.equal(one.json().credential.signature_type, 'EdDSA')
    assert.equal(one.json().credential.anonymous_credential, null)
    assert.equal(one.json().credential.bbs_signature, null)
    // JWT-only carries any JSON number; BBS signs numbers with at most 4 decimals.
    const floaty = { ...ATTRS, gpa: 2 + 0.28 }
    assert.equal(
      (
        await issue({
          credential_type: 'UniversityDegree',
          schema_id: jwtOnly,
          subject_did: holder.did,
          attributes: floaty,
        })
      ).statusCode,
      201,
    )
    const refused = await issue({
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: floaty,
    })
    assert.equal(refused.statusCode, 400, refused.body)
    assert.equal(refused.json().details.attribute, 'gpa')
    assert.match(refused.json().message, /4 decimals/)
  })

  it('pre-fills from a template: fixed attributes and expiry; a conflicting value is 400', async () => {
    const tpl = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/templates`, issuer.token, {
      name: 'Honours',
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      fixed_attributes: { graduated: true },
      validity_days: 30,
    })
    assert.equal(tpl.statusCode, 201, tpl.body)
    const templateId = tpl.json().template.id
    const { graduated: _g, ...rest } = ATTRS
    const res = await issue({
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      template_id: templateId,
      attributes: rest,
    })
    assert.equal(res.statusCode, 201, res.body)
    const payload = decodeJwt(res.json().credential.jwt)
    assert.equal((payload.vc as Json).credentialSubject.graduated, true)
    const days = (payload.exp! - payload.iat!) / 86_400
    assert.equal(days, 30)
    const conflict = await issue({
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      template_id: templateId,
      attributes: { ...rest, graduated: false },
    })
    assert.equal(conflict.statusCode, 400)
    assert.match(conflict.json().message, /graduated.*fixed/)
    const wrongType = await issue({
      credential_type: 'Other',
      schema_id: schemaId,
      template_id: templateId,
      attributes: rest,
    })
    assert.equal(wrongType.statusCode, 400)
  })

  it('refuses to delete a schema credentials were issued under (409)', async () => {
    const res = await callAs(t.app, 'DELETE', `/api/issuer/${issuer.did}/schemas/${schemaId}`, issuer.token)
    assert.equal(res.statusCode, 409)
    assert.ok(res.json().message)
  })

  it('with require_step_up, issuing and revoking need a recent authenticate', async () => {
    const strict = await new IssuerActor().setUp(t.app, 'Strict')
    const sid = await strict.schema(t.app)
    const body = { credential_type: 'UniversityDegree', schema_id: sid, attributes: ATTRS }
    const set = await callAs(t.app, 'POST', `/api/issuer/${strict.did}/set-auth`, strict.token, {
      ...(await strict.proof(t.app, strict.did, 'step-up')),
      require_step_up: true,
    })
    assert.equal(set.statusCode, 200, set.body)
    const refused = await issue(body, strict.token, strict.did)
    assert.equal(refused.statusCode, 401)
    assert.match(refused.json().message, /step-up/)
    assert.equal(
      (
        await callAs(
          t.app,
          'POST',
          `/api/issuer/${strict.did}/authenticate`,
          strict.token,
          await strict.proof(t.app, strict.did, 'step-up'),
        )
      ).statusCode,
      200,
    )
    assert.equal((await issue(body, strict.token, strict.did)).statusCode, 201)
  })
})

describe('issued credentials: listing, revocation, statistics', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const rival = new IssuerActor()
  const alice = new DidClient()
  const bob = new DidClient()
  let schemaId: string
  const ids: string[] = []

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app)
    await rival.setUp(t.app, 'Rival')
    schemaId = await issuer.schema(t.app)
    const jobs = []
    for (let i = 0; i < 7; i++) {
      const subject = i % 2 === 0 ? alice.did : bob.did
      const type = i < 5 ? 'UniversityDegree' : 'Diploma'
      jobs.push(
        callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
          credential_type: type,
          schema_id: schemaId,
          subject_did: subject,
          attributes: ATTRS,
        }),
      )
    }
    // Issued concurrently: the group commit and the status-list allocator must keep every record.
    for (const res of await Promise.all(jobs)) {
      assert.equal(res.statusCode, 201, res.body)
      ids.push(res.json().credential.id)
    }
  })
  after(() => t.close())
  const list = (query: string, token = issuer.token) =>
    callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials${query}`, token)

  it('gives every credential its own status-list slot', async () => {
    const all = (await list('?limit=200')).json().data
    const slots = new Set(
      all.map((c: Json) => `${c.credential_status.status_list_credential}#${c.credential_status.status_list_index}`),
    )
    assert.equal(slots.size, 7)
  })

  it('paginates and filters by status, type and subject', async () => {
    const seen: string[] = []
    let cursor: string | null = ''
    do {
      const res = await list(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      assert.equal(res.statusCode, 200)
      assert.ok(res.json().count <= 3)
      seen.push(...res.json().data.map((c: { id: string }) => c.id))
      cursor = res.json().next_cursor
    } while (cursor)
    assert.deepEqual([...seen].sort(), [...ids].sort())
    assert.equal((await list('?type=Diploma')).json().count, 2)
    assert.equal((await list(`?subject=${encodeURIComponent(alice.did)}`)).json().count, 4)
    assert.equal((await list('?status=revoked')).json().count, 0)
    assert.equal((await list('?status=bogus')).statusCode, 400)
    assert.equal((await list('?limit=500')).statusCode, 400)
    assert.equal((await list('', rival.token)).statusCode, 403)
  })

  it("revokes once, answers a second revoke 200 unchanged, and hides other issuers' records (404)", async () => {
    const url = (id: string, did = issuer.did) => `/api/issuer/${did}/credentials/${id}/revoke`
    const first = await callAs(t.app, 'POST', url(ids[0]!), issuer.token)
    assert.equal(first.statusCode, 200, first.body)
    assert.deepEqual(Object.keys(first.json().credential).sort(), [
      'id',
      'issuer_did',
      'owner_did',
      'revocation_blockchain_tx',
      'revoked_at',
      'status',
    ])
    assert.equal(first.json().credential.status, 'revoked')
    assert.equal(first.json().credential.revocation_blockchain_tx, null)
    const second = await callAs(t.app, 'POST', url(ids[0]!), issuer.token)
    assert.equal(second.statusCode, 200)
    assert.equal(second.json().credential.revoked_at, first.json().credential.revoked_at)
    assert.equal((await callAs(t.app, 'POST', url(ids[1]!, rival.did), rival.token)).statusCode, 404)
    assert.equal(
      (await callAs(t.app, 'POST', url('aly:00000000-0000-4000-8000-000000000000'), issuer.token)).statusCode,
      404,
    )
    assert.equal((await callAs(t.app, 'POST', url(ids[1]!), rival.token)).statusCode, 403)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/issuer/${rival.did}/credentials/${ids[1]}`, rival.token)).statusCode,
      404,
    )
    assert.equal((await list('?status=revoked')).json().count, 1)
    const one = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials/${ids[0]}`, issuer.token)
    assert.equal(one.json().credential.status, 'revoked')
  })

  it('revokes concurrently exactly once', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${ids[2]}/revoke`, issuer.token),
      ),
    )
    assert.ok(results.every((r) => r.statusCode === 200))
    assert.equal(results.filter((r) => r.json().message === 'Credential revoked').length, 1)
  })

  it('reports statistics', async () => {
    const res = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/statistics`, issuer.token)
    assert.equal(res.statusCode, 200, res.body)
    const s = res.json().statistics
    assert.equal(s.issued, 7)
    assert.equal(s.revoked, 2)
    assert.equal(s.active, 5)
    assert.deepEqual(s.by_type, { UniversityDegree: 5, Diploma: 2 })
    assert.equal(s.requests_pending, 0)
    assert.equal((await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/statistics`, rival.token)).statusCode, 403)
  })

  it('serves unknown status lists as 404', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/status-lists/sl-unknown' })).statusCode, 404)
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/status-lists/bad%20id' })).statusCode, 400)
  })
})

/** An outside verifier: only the published method (key + params label) and the signed content. */
async function verifyBbsFromDidDocument(
  method: Record<string, unknown>,
  content: AnonCredentialContent,
  signature: string,
): Promise<boolean> {
  const published = decodeBbsVerificationMethod(method)
  assert.ok(published, 'a BBS verification method')
  await initBbs()
  return verifyBbs(
    published.publicKey,
    published.paramsLabel,
    credentialMessages(content),
    Buffer.from(signature, 'base64url'),
  )
}
