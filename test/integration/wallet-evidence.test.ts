import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { DbKeyStore } from '../../src/modules/keys/key-store.js'
import { insertHolderKemKey } from '../../src/modules/wallet/holder-kem-keys.repository.js'
import { insertEvidence } from '../../src/modules/wallet/wallet-evidence.repository.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { openAsHolder } from '../helpers/hpke-holder.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { multipart, PDF_BYTES, type Part } from '../helpers/wallet-fixtures.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const MAX = 4096
const SCHEMA = {
  name: 'Degree',
  version: '1',
  attributes: [{ name: 'given_name', data_type: 'string', required: true }],
  evidence_allowed: true,
  allowed_evidence: ['transcript'],
  anonymous_credentials: false,
}

describe('wallet evidence upload', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const other = new DidClient()
  let holderToken: string
  let otherToken: string

  before(async () => {
    t = await createTestApp({
      env: { EVIDENCE_MAX_BYTES: String(MAX), EVIDENCE_ALLOWED_TYPES: 'application/pdf, image/png,text/plain' },
    })
    await issuer.setUp(t.app, 'Uni')
    holderToken = await holder.login(t.app)
    otherToken = await other.login(t.app)
  })
  after(() => t.close())

  const upload = (parts: Part[], token = holderToken, did = holder.did) => {
    const { payload, headers } = multipart(parts)
    return t.app.inject({
      method: 'POST',
      url: `/api/wallet/${did}/evidence/upload`,
      headers: { ...headers, ...(token ? bearer(token) : {}) },
      payload,
    })
  }
  const pdf = (data: Uint8Array = PDF_BYTES, contentType = 'application/pdf', filename = 'transcript.pdf'): Part => ({
    name: 'file',
    filename,
    contentType,
    data,
  })

  it("stores the file sealed and returns the spec's evidence attachment, usable in an issuance", async () => {
    const res = await upload([{ name: 'label', value: 'transcript' }, pdf()])
    assert.equal(res.statusCode, 201, res.body)
    const { evidence, record } = res.json()
    assert.deepEqual(Object.keys(evidence).sort(), [
      'content_type',
      'filename',
      'gateway_url',
      'ipfs_hash',
      'label',
      'size',
    ])
    assert.equal(evidence.label, 'transcript')
    assert.equal(evidence.filename, 'transcript.pdf')
    assert.equal(evidence.content_type, 'application/pdf')
    assert.equal(evidence.size, PDF_BYTES.length)
    assert.equal(evidence.gateway_url, `http://service.test/api/ipfs/${evidence.ipfs_hash}`)
    assert.match(record.id, /^evidence-/)
    assert.equal(record.kyber_encrypted, true)

    // What the public gateway serves is the HPKE envelope, not the file; the holder's key opens
    // it with any HPKE implementation, bound to the holder's DID and the evidence id.
    const gateway = await t.app.inject({ method: 'GET', url: `/api/ipfs/${evidence.ipfs_hash}` })
    assert.equal(gateway.statusCode, 200)
    assert.ok(!gateway.rawPayload.includes(PDF_BYTES.subarray(0, 20)))
    const keys = new DbKeyStore(t.deps.database.db, t.deps.masterKey)
    const [kemKey] = await keys.list(holder.did, 'holder-mlkem768')
    assert.deepEqual(
      await openAsHolder(await keys.openPrivateKey(kemKey!.kid), JSON.parse(gateway.body), holder.did, record.id),
      new Uint8Array(PDF_BYTES),
    )
    // The holder gets the file back (the service holds its key by default).
    const content = await callAs(t.app, 'GET', `/api/wallet/${holder.did}/evidence/${record.id}/content`, holderToken)
    assert.equal(content.statusCode, 200)
    assert.equal(content.headers['content-type'], 'application/pdf')
    assert.deepEqual(content.rawPayload, PDF_BYTES)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/wallet/${other.did}/evidence/${record.id}/content`, otherToken)).statusCode,
      404,
    )

    // The attachment goes, as returned, into an issuance's evidence list.
    const schemaId = await issuer.schema(t.app, SCHEMA)
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Degree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: 'Ada' },
      evidence: [evidence],
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const listed = (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/credentials`, holderToken)).json()
    assert.deepEqual(listed.data[0].evidence_attachments, [evidence])
  })

  it('accepts a plain-text file and lists the uploads, paginated', async () => {
    const text = await upload([
      { name: 'label', value: 'note' },
      { name: 'file', filename: '../../etc/note.txt', contentType: 'text/plain', data: Buffer.from('hello') },
    ])
    assert.equal(text.statusCode, 201, text.body)
    assert.equal(text.json().evidence.filename, 'note.txt')
    const first = (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/evidence?limit=1`, holderToken)).json()
    assert.equal(first.count, 1)
    const rest = (
      await callAs(
        t.app,
        'GET',
        `/api/wallet/${holder.did}/evidence?limit=1&cursor=${encodeURIComponent(first.next_cursor)}`,
        holderToken,
      )
    ).json()
    assert.equal(rest.count, 1)
    assert.equal(rest.next_cursor, null)
    assert.deepEqual([first.data[0].label, rest.data[0].label].sort(), ['note', 'transcript'])
    assert.equal(
      (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/evidence?label=note`, holderToken)).json().count,
      1,
    )
    assert.equal((await callAs(t.app, 'GET', `/api/wallet/${other.did}/evidence`, otherToken)).json().count, 0)
  })

  it('refuses a type not allowed, and content that is not the declared type (415)', async () => {
    const exe = await upload([
      { name: 'label', value: 'transcript' },
      pdf(Buffer.from('MZ\x90\x00'), 'application/x-msdownload', 'a.exe'),
    ])
    assert.equal(exe.statusCode, 415, exe.body)
    assert.match(exe.json().message, /not accepted/)
    const fake = await upload([
      { name: 'label', value: 'transcript' },
      pdf(Buffer.from('just text'), 'application/pdf'),
    ])
    assert.equal(fake.statusCode, 415, fake.body)
    const png = await upload([{ name: 'label', value: 'transcript' }, pdf(PDF_BYTES, 'image/png', 'a.png')])
    assert.equal(png.statusCode, 415, png.body)
  })

  it('refuses a file over EVIDENCE_MAX_BYTES (413)', async () => {
    const big = Buffer.concat([PDF_BYTES, Buffer.alloc(MAX, 0x20)])
    const res = await upload([{ name: 'label', value: 'transcript' }, pdf(big)])
    assert.equal(res.statusCode, 413, res.body)
    assert.match(res.json().message, new RegExp(String(MAX)))
    // Exactly at the limit is fine.
    const exact = Buffer.concat([PDF_BYTES, Buffer.alloc(MAX - PDF_BYTES.length, 0x20)])
    assert.equal((await upload([{ name: 'label', value: 'transcript' }, pdf(exact)])).statusCode, 201)
  })

  it('400 without a file, without a label or with an empty file; 415 for JSON; 401 and 403', async () => {
    const noFile = await upload([{ name: 'label', value: 'transcript' }])
    assert.equal(noFile.statusCode, 400, noFile.body)
    assert.match(noFile.json().message, /No file/)
    const noLabel = await upload([pdf()])
    assert.equal(noLabel.statusCode, 400, noLabel.body)
    assert.match(noLabel.json().message, /label/)
    assert.equal((await upload([{ name: 'label', value: '../bad' }, pdf()])).statusCode, 400)
    assert.equal((await upload([{ name: 'label', value: 'transcript' }, pdf(Buffer.alloc(0))])).statusCode, 400)
    assert.equal((await upload([{ name: 'label', value: 'transcript' }, pdf(), pdf()])).statusCode, 413)
    const json = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/evidence/upload`, holderToken, {
      label: 'transcript',
    })
    assert.equal(json.statusCode, 415, json.body)
    assert.equal((await upload([{ name: 'label', value: 'transcript' }, pdf()], '')).statusCode, 401)
    assert.equal((await upload([{ name: 'label', value: 'transcript' }, pdf()], otherToken)).statusCode, 403)
    assert.equal((await callAs(t.app, 'GET', `/api/wallet/${holder.did}/evidence`, otherToken)).statusCode, 403)
    // Only the uploads above that were accepted are recorded.
    const all = (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/evidence`, holderToken)).json() as Json
    assert.equal(all.count, 3)
  })

  it('still opens evidence sealed before HPKE (v1 envelope, key stored expanded), and seals new files to that key', async () => {
    const legacy = JSON.parse(readFileSync(new URL('../fixtures/sealed-envelope-v1.json', import.meta.url), 'utf8'))
    const veteran = new DidClient()
    const token = await veteran.login(t.app)
    // The state an earlier release left: the service-held key (expanded), its row, the envelope, the record.
    const keys = new DbKeyStore(t.deps.database.db, t.deps.masterKey)
    const publicKey = new Uint8Array(Buffer.from(legacy.public_key, 'base64url'))
    const stored = await keys.storeKey(veteran.did, 'holder-mlkem768', 'ML-KEM-768', {
      publicKey,
      privateKey: new Uint8Array(Buffer.from(legacy.private_key_expanded, 'base64url')),
    })
    await insertHolderKemKey(t.deps.database.db, {
      did: veteran.did,
      public_key: publicKey,
      custody: 'service',
      kid: stored.kid,
    })
    const { cid } = await t.deps.content.put(Buffer.from(JSON.stringify(legacy.envelope)))
    const plaintext = Buffer.from(legacy.plaintext as string)
    await insertEvidence(t.deps.database.db, {
      id: legacy.associated_data,
      holder_did: veteran.did,
      label: 'transcript',
      filename: 'transcript.txt',
      ipfs_hash: cid,
      content_type: 'text/plain',
      size: plaintext.length,
      kyber_encrypted: true,
      created_at: new Date(),
    })

    const old = await callAs(
      t.app,
      'GET',
      `/api/wallet/${veteran.did}/evidence/${legacy.associated_data}/content`,
      token,
    )
    assert.equal(old.statusCode, 200, old.body)
    assert.deepEqual(old.rawPayload, plaintext)

    const fresh = await upload([{ name: 'label', value: 'transcript' }, pdf()], token, veteran.did)
    assert.equal(fresh.statusCode, 201, fresh.body)
    const gateway = JSON.parse(
      (await t.app.inject({ method: 'GET', url: `/api/ipfs/${fresh.json().evidence.ipfs_hash}` })).body,
    )
    assert.equal(gateway.format, 'sealed-envelope/v2')
    const back = await callAs(
      t.app,
      'GET',
      `/api/wallet/${veteran.did}/evidence/${fresh.json().record.id}/content`,
      token,
    )
    assert.equal(back.statusCode, 200, back.body)
    assert.deepEqual(back.rawPayload, PDF_BYTES)
  })
})
