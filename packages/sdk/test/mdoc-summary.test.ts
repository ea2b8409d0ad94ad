/**
 * mdocSummary: the doctype and data elements of a wallet credential that is an ISO/IEC 18013-5
 * mdoc (its IssuerSigned, base64url CBOR, as the wallet keeps it), and nothing for the JOSE and
 * JSON formats. The IssuerSigned here is encoded with cbor-x, apart from the SDK.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encode, Tag } from 'cbor-x'
import * as jose from 'jose'
import { mdocSummary } from '@credential-service/sdk'

const NS = 'org.iso.18013.5.1'

/** An IssuerSigned (§8.3.2.1.2.2): nameSpaces of tag-24 IssuerSignedItems, and an issuerAuth COSE_Sign1 stand-in. */
function issuerSigned(elements: Record<string, unknown>): string {
  const items = Object.entries(elements).map(
    ([elementIdentifier, elementValue], digestID) =>
      new Tag(encode({ digestID, random: new Uint8Array(16), elementIdentifier, elementValue }), 24),
  )
  return Buffer.from(
    encode({ nameSpaces: { [NS]: items }, issuerAuth: [new Uint8Array(3), {}, null, new Uint8Array(64)] }),
  ).toString('base64url')
}

const held = (jwt: string, credential_data: Record<string, unknown>, credential_type = 'org.iso.18013.5.1.mDL') => ({
  credential_type,
  credential_data,
  jwt,
})

describe('mdocSummary', () => {
  it('an mdoc: its doctype (the type the wallet lists) and its element identifiers', () => {
    const data = { family_name: 'Mustermann', age_over_18: true, driving_privileges: [{ vehicle_category_code: 'B' }] }
    const summary = mdocSummary(held(issuerSigned(data), data))
    assert.deepEqual(summary, {
      format: 'mso_mdoc',
      doctype: 'org.iso.18013.5.1.mDL',
      elements: ['family_name', 'age_over_18', 'driving_privileges'],
    })
  })

  it('an mdoc with one element, and one whose elements the wallet did not keep: no elements', () => {
    assert.deepEqual(mdocSummary(held(issuerSigned({ age_over_18: true }), { age_over_18: true }))?.elements, [
      'age_over_18',
    ])
    assert.deepEqual(mdocSummary(held(issuerSigned({ age_over_18: true }), {}))?.elements, [])
  })

  it('not an mdoc: a JWT-VC, an SD-JWT VC, a JSON credential, an empty or short text', async () => {
    const key = await jose.generateKeyPair('ES256')
    const jwt = await new jose.SignJWT({ vc: { type: ['VerifiableCredential'] } })
      .setProtectedHeader({ alg: 'ES256' })
      .sign(key.privateKey)
    const disclosure = Buffer.from(JSON.stringify(['salt', 'given_name', 'Erika'])).toString('base64url')
    for (const text of [
      jwt,
      `${jwt}~${disclosure}~`,
      JSON.stringify({ '@context': ['https://www.w3.org/ns/credentials/v2'], proof: {} }),
      '',
      'oA',
    ])
      assert.equal(mdocSummary(held(text, { given_name: 'Erika' }, 'Resident')), undefined, text.slice(0, 20))
  })
})
