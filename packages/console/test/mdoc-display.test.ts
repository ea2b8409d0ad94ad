/**
 * How the holder's wallet words an mdoc (ISO/IEC 18013-5 `mso_mdoc`): its doctype by name, its
 * `[namespace, element]` claims, and element values as the wallet view gives them (full-date text,
 * base64url bytes, driving_privileges as an array of objects). The IssuerSigned here is encoded
 * with cbor-x, not by the service.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Encoder, Tag } from 'cbor-x'
import { PNG } from 'pngjs'
import { claimLabel, formatValue, storedFormat } from '../src/holder/format.js'
import {
  credentialTitle,
  doctypeLabel,
  mdocClaimLabel,
  mdocDoctypeOf,
  readableText,
  readableValue,
  type Readable,
} from '../src/holder/mdoc.js'

const MDL = 'org.iso.18013.5.1.mDL'
const MDL_NS = 'org.iso.18013.5.1'
const PID = 'eu.europa.ec.eudi.pid.1'
// Plain CBOR (RFC 8949): maps with their own length, no cbor-x records or Map tag.
const cbor = new Encoder({ useRecords: false, variableMapSize: true, mapsAsObjects: true })
const encode = (value: unknown) => cbor.encode(value)

/** An IssuerSigned (§8.3.2.1.2.2) whose MSO names `docType`, as a wallet stores it: base64url CBOR. */
function issuerSigned(docType: string): string {
  const mso = encode({ version: '1.0', digestAlgorithm: 'SHA-256', docType, valueDigests: {} })
  // COSE_Sign1 (RFC 9052 §4.2): protected header (alg ES256), unprotected, the MSO as #6.24(bstr), a signature.
  const issuerAuth = [new Uint8Array([0xa1, 0x01, 0x26]), {}, encode(new Tag(mso, 24)), new Uint8Array(64)]
  const element = {
    digestID: 0,
    random: new Uint8Array(16),
    elementIdentifier: 'family_name',
    elementValue: 'Mustermann',
  }
  const issuerSignedItem = new Tag(encode(element), 24)
  return Buffer.from(encode({ nameSpaces: { [MDL_NS]: [issuerSignedItem] }, issuerAuth })).toString('base64url')
}

function png(): Buffer {
  const image = new PNG({ width: 2, height: 2 })
  image.data.fill(200)
  return PNG.sync.write(image)
}

const kind = (r: Readable) => r.kind

describe('the wallet words an mdoc', () => {
  it('names the ISO mDL and the EU PID doctypes, and no other', () => {
    assert.equal(doctypeLabel(MDL), 'Mobile driving licence')
    assert.equal(doctypeLabel(PID), 'Person identification data')
    assert.equal(doctypeLabel('org.example.loyalty.1'), undefined)
  })

  it('reads a [namespace, element] path as the document and the element, in words', () => {
    assert.equal(mdocClaimLabel([MDL_NS, 'age_over_18']), 'Mobile driving licence: age over 18')
    assert.equal(mdocClaimLabel([PID, 'family_name_birth']), 'Person identification data: family name at birth')
    assert.equal(mdocClaimLabel([MDL_NS, 'un_distinguishing_sign']), 'Mobile driving licence: UN distinguishing sign')
    // A namespace this wallet does not know: the doctype's name if it knows that, else the namespace itself.
    assert.equal(mdocClaimLabel(['org.example.ns', 'level'], MDL), 'Mobile driving licence: level')
    assert.equal(mdocClaimLabel(['org.example.ns', 'level']), 'org.example.ns: level')
    // Through the wallet's one claim labeller: mdoc paths by format or known namespace, the others unchanged.
    assert.equal(claimLabel([MDL_NS, 'birth_date']), 'Mobile driving licence: birth date')
    assert.equal(claimLabel(['org.example.ns', 'level'], 'mso_mdoc'), 'org.example.ns: level')
    assert.equal(claimLabel(['credentialSubject', 'given_name']), 'given_name')
    assert.equal(claimLabel(['address', 'locality'], 'dc+sd-jwt'), 'address › locality')
  })

  it('shows a full-date as a date of the same day in any time zone, booleans as Yes and No', () => {
    const birth = readableValue('1990-08-12', 'birth_date')
    assert.equal(birth.kind, 'date')
    assert.equal((birth as { iso: string }).iso, '1990-08-12')
    const text = readableText(birth)
    assert.notEqual(text, '1990-08-12')
    assert.match(text, /1990/)
    assert.match(text, /12/)
    // The wallet view's form of a full-date today: an object with its date at midnight UTC.
    const wrapped = readableValue({ date: '1990-08-12T00:00:00Z' }, 'birth_date')
    assert.deepEqual(wrapped, birth)
    assert.equal(readableValue({ date: '1990-08-12T10:30:00Z' }).kind, 'fields', 'a time of day is not a full-date')
    assert.equal(readableValue('2026-03-01T10:30:00Z').kind, 'date')
    assert.deepEqual(readableValue(true), { kind: 'text', text: 'Yes' })
    assert.deepEqual(readableValue(false), { kind: 'text', text: 'No' })
    assert.deepEqual(readableValue('Mustermann', 'family_name'), { kind: 'text', text: 'Mustermann' })
    assert.deepEqual(readableValue(null), { kind: 'text', text: '(empty)' })
  })

  it('reads driving_privileges as a list of labelled fields with dates, never JSON', () => {
    const privileges = readableValue(
      [
        { vehicle_category_code: 'B', issue_date: { date: '2008-05-01T00:00:00Z' }, expiry_date: '2036-01-01' },
        { vehicle_category_code: 'A', codes: [{ code: '78' }] },
      ],
      'driving_privileges',
    )
    assert.equal(privileges.kind, 'list')
    const [first, second] = (privileges as { items: Readable[] }).items
    assert.equal(first!.kind, 'fields')
    const fields = (first as Extract<Readable, { kind: 'fields' }>).fields
    assert.deepEqual(
      fields.map((f) => [f.label, kind(f.value)]),
      [
        ['Vehicle category', 'text'],
        ['Issue date', 'date'],
        ['Expiry date', 'date'],
      ],
    )
    const codes = (second as Extract<Readable, { kind: 'fields' }>).fields.find((f) => f.name === 'codes')!
    assert.equal(codes.value.kind, 'list')
    const line = formatValue([{ vehicle_category_code: 'B', issue_date: '2008-05-01' }])
    assert.match(line, /^vehicle category B, issue date .*2008/)
    assert.doesNotMatch(line, /[{}"[\]]/)
  })

  it('shows a portrait of JPEG or PNG bytes (base64url, or the data: URL an issuer gave) as that image', () => {
    const pngBytes = png()
    const fromBase64url = readableValue(pngBytes.toString('base64url'), 'portrait')
    assert.equal(fromBase64url.kind, 'image')
    const src = (fromBase64url as { src: string }).src
    assert.match(src, /^data:image\/png;base64,/)
    assert.deepEqual(Buffer.from(src.slice(src.indexOf(',') + 1), 'base64'), pngBytes)

    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1])
    // The media type a data: URL claims is not trusted: the bytes say what they are.
    const fromDataUrl = readableValue(`data:application/octet-stream;base64,${jpeg.toString('base64')}`, 'portrait')
    assert.equal(fromDataUrl.kind, 'image')
    assert.match((fromDataUrl as { src: string }).src, /^data:image\/jpeg;base64,/)
  })

  it('says what bytes are when they are no image this page shows: JPEG 2000, other bytes', () => {
    const jp2 = Buffer.concat([
      Buffer.from([0, 0, 0, 0x0c, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a]),
      Buffer.alloc(20),
    ])
    assert.match(readableText(readableValue(jp2.toString('base64url'), 'portrait')), /JPEG 2000 image of 32 bytes/)
    assert.deepEqual(readableValue(Buffer.alloc(10, 7).toString('base64url'), 'portrait'), {
      kind: 'text',
      text: '10 bytes of data',
    })
    // Text that happens to be valid base64 stays text outside the byte elements.
    assert.deepEqual(readableValue('DE0001DE0001DE0001', 'document_number'), {
      kind: 'text',
      text: 'DE0001DE0001DE0001',
    })
  })

  it('knows a stored mdoc by its IssuerSigned and reads its doctype there; JWTs, SD-JWTs and JSON are not mdocs', () => {
    const custom = {
      credential_type: 'LoyaltyCard',
      jwt: issuerSigned('org.example.loyalty.1'),
      signature_type: 'ES256',
    }
    assert.equal(mdocDoctypeOf(custom), 'org.example.loyalty.1')
    assert.equal(storedFormat(custom), 'mdoc (mso_mdoc)')
    assert.equal(credentialTitle(custom), 'LoyaltyCard')

    const licence = { credential_type: 'DrivingLicence', jwt: issuerSigned(MDL), signature_type: 'EdDSA' }
    assert.equal(mdocDoctypeOf(licence), MDL)
    assert.equal(credentialTitle(licence), 'Mobile driving licence')

    for (const jwt of [
      'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln',
      'eyJhbGciOiJFUzI1NiJ9.e30.c2ln~WyJhIiwiYiJd~',
      '{"@context":[]}',
    ])
      assert.equal(mdocDoctypeOf({ credential_type: 'LibraryPass', jwt }), undefined, jwt)
    // CBOR that is not a map holding issuerAuth and nameSpaces.
    assert.equal(
      mdocDoctypeOf({
        credential_type: 'X',
        jwt: Buffer.from(encode(['issuerAuth', 'nameSpaces'])).toString('base64url'),
      }),
      undefined,
    )
    assert.equal(
      mdocDoctypeOf({ credential_type: 'X', jwt: Buffer.from(encode({ nameSpaces: 1 })).toString('base64url') }),
      undefined,
    )
  })
})
