import { randomBytes, type KeyObject } from 'node:crypto'
import * as x509 from '@peculiar/x509'

// @peculiar/x509 signs and verifies through WebCrypto: node's own, not a polyfill.
x509.cryptoProvider.set(globalThis.crypto)
/** A WebCrypto key, named through the global so Node's and the DOM's typings agree on it. */
type WebKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>

/**
 * The certificate profiles of ISO/IEC 18013-5 Annex B, made with @peculiar/x509 (ECDSA P-256 with
 * SHA-256): the IACA root (B.1.2) and the Document Signer (B.1.4), and the PKCS#10 request (RFC
 * 2986) an outside IACA answers with a Document Signer certificate.
 */

/** The mdoc Document Signer extended key usage (ISO/IEC 18013-5 Annex B.1.4). */
export const MDOC_DS_EKU = '1.0.18013.5.1.2'

/**
 * countryName of the subjects when the issuer profile names no country (Annex B asks for the
 * issuing country, ISO 3166-1 alpha-2): ZZ is a user-assigned code of ISO 3166-1 §8.1.3 (commonly
 * "unknown"), so it names no real country an issuer would be mistaken for. An mDL, whose
 * issuing_country must be its certificates' country (§9.3.3), needs the profile's country.
 */
export const PLACEHOLDER_COUNTRY = 'ZZ'

export const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const
const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const
/** ub-common-name of RFC 5280 Appendix A.1. */
export const CN_MAX = 64

export interface CertificateValidity {
  notBefore: Date
  notAfter: Date
}

/** What an issuer profile says of the subject of its certificates. */
export interface IssuerSubject {
  name: string
  /** ISO 3166-1 alpha-2; null when the profile names none. */
  country: string | null
}

/** The countryName its certificates carry: the profile's country, or the placeholder. */
export const countryFor = (issuer: IssuerSubject): string => issuer.country ?? PLACEHOLDER_COUNTRY

/** A subject name: the profile's name as CN (escaped by the library), its country or the placeholder. */
export function subjectName(issuer: IssuerSubject, suffix: string): x509.JsonName {
  const cn = `${issuer.name.slice(0, CN_MAX - suffix.length - 1).trim() || 'Issuer'} ${suffix}`
  return [{ C: [countryFor(issuer)] }, { CN: [cn] }]
}

/**
 * A self-signed root that issues end-entity certificates only (RFC 5280 §4.2.1.9, path length 0;
 * keyCertSign and cRLSign): an issuer's IACA (ISO/IEC 18013-5 Annex B.1.2), a verifier's root.
 */
export async function selfSignedCa(
  name: x509.JsonName,
  keys: { privateKey: KeyObject; publicKey: KeyObject },
  validity: CertificateValidity,
): Promise<x509.X509Certificate> {
  const pair = { privateKey: await signingKey(keys.privateKey), publicKey: await verifyingKey(keys.publicKey) }
  return x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name,
    ...validity,
    signingAlgorithm: ECDSA_SHA256,
    keys: pair,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(pair.publicKey),
    ],
  })
}

export async function documentSignerCertificate(input: {
  iaca: x509.X509Certificate
  iacaKey: KeyObject
  subject: x509.JsonName
  publicKey: KeyObject
  validity: CertificateValidity
}): Promise<x509.X509Certificate> {
  const publicKey = await verifyingKey(input.publicKey)
  return x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: input.subject,
    issuer: input.iaca.subject,
    ...input.validity,
    signingAlgorithm: ECDSA_SHA256,
    publicKey,
    signingKey: await signingKey(input.iacaKey),
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([MDOC_DS_EKU], true),
      await x509.AuthorityKeyIdentifierExtension.create(await input.iaca.publicKey.export()),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
    ],
  })
}

/** A PKCS#10 request (RFC 2986) for a Document Signer certificate, asking for the B.1.4 usages. */
export async function documentSignerRequest(
  subject: x509.JsonName,
  keys: { privateKey: KeyObject; publicKey: KeyObject },
): Promise<string> {
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys: { privateKey: await signingKey(keys.privateKey), publicKey: await verifyingKey(keys.publicKey) },
    signingAlgorithm: ECDSA_SHA256,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([MDOC_DS_EKU], true),
    ],
  })
  return csr.toString('pem')
}

/**
 * A positive serial of 16 random bytes: RFC 5280 §4.1.2.2 (at most 20 octets) and Annex B
 * (at least 63 bits of entropy); the top bit cleared so the DER integer stays positive.
 */
export function serialNumber(): string {
  const bytes = randomBytes(16)
  bytes[0] = (bytes[0]! & 0x7f) | 0x01
  return bytes.toString('hex')
}

export function signingKey(key: KeyObject): Promise<WebKey> {
  return globalThis.crypto.subtle.importKey('jwk', key.export({ format: 'jwk' }), P256, false, ['sign'])
}

export function verifyingKey(key: KeyObject): Promise<WebKey> {
  return globalThis.crypto.subtle.importKey('jwk', key.export({ format: 'jwk' }), P256, true, ['verify'])
}
