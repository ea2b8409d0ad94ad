import type { KeyObject } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import {
  ECDSA_SHA256,
  serialNumber,
  signingKey,
  verifyingKey,
  type CertificateValidity,
} from './certificate-profiles.js'

/**
 * An end-entity certificate the issuer's IACA issues for a signing key other than the mdoc
 * Document Signer (RFC 5280 §4.2): digitalSignature only, no CA, and a subjectAltName naming the
 * credential issuer identifier as a URI (§4.2.1.6), which SD-JWT VC §3.5 matches against `iss`.
 * No dNSName: every issuer here shares the host, and SD-JWT VC accepts a dNSName matching the
 * host of `iss`, so one issuer's leaf would vouch for another's identifier.
 */
export async function issuerLeafCertificate(input: {
  iaca: x509.X509Certificate
  iacaKey: KeyObject
  subject: x509.JsonName
  publicKey: KeyObject
  validity: CertificateValidity
  /** The credential issuer identifier (SD-JWT VC `iss`, OID4VCI `credential_issuer`). */
  issuerUrl: string
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
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectAlternativeNameExtension([{ type: 'url', value: input.issuerUrl }], false),
      await x509.AuthorityKeyIdentifierExtension.create(await input.iaca.publicKey.export()),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
    ],
  })
}

/** The URIs a certificate's subjectAltName names (to see whether a leaf still names an identifier). */
export function uriNames(cert: x509.X509Certificate): string[] {
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension)
  return san ? san.names.items.filter((n) => n.type === 'url').map((n) => n.value) : []
}
