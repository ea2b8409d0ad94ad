/**
 * A sample ISO mDL (ISO/IEC 18013-5 §7.2.1, Table 5's mandatory elements with age_over_NN) for the
 * service's ready-made mDL schema, and an IssuerSigned wrapped as @auth0/mdl's DeviceResponse.from
 * reads an mdoc. Independent of the service's mdoc code: the wrapper splices the bytes as they are.
 */
import { encode } from 'cbor-x'

export const MDL_DOCTYPE = 'org.iso.18013.5.1.mDL'
export const MDL_NAMESPACE = 'org.iso.18013.5.1'

/** Attributes of an mDL issued in Germany (the issuer profile's country must be DE). */
export const sampleLicence = {
  family_name: 'Mustermann',
  given_name: 'Erika',
  birth_date: '1990-08-12',
  issue_date: '2026-01-01',
  expiry_date: '2036-01-01',
  issuing_country: 'DE',
  issuing_authority: 'Kraftfahrt-Bundesamt',
  document_number: 'DE-0001',
  portrait: 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ==',
  driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2008-05-01', expiry_date: '2036-01-01' }],
  un_distinguishing_sign: 'D',
  age_over_18: true,
  age_over_21: true,
}

/**
 * An IssuerSigned (its CBOR) inside a DeviceResponse without device signature (§8.3.2.1.2.2):
 * `{version, documents: [{docType, issuerSigned}], status}`, the IssuerSigned spliced in unchanged.
 */
export function asMdoc(issuerSigned: Uint8Array, doctype = MDL_DOCTYPE): Buffer {
  return Buffer.concat([
    Buffer.from([0xa3]),
    encode('version'),
    encode('1.0'),
    encode('documents'),
    Buffer.from([0x81, 0xa2]),
    encode('docType'),
    encode(doctype),
    encode('issuerSigned'),
    issuerSigned,
    encode('status'),
    encode(0),
  ])
}
