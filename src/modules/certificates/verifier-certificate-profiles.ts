import type { KeyObject } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import {
  CN_MAX,
  ECDSA_SHA256,
  selfSignedCa,
  serialNumber,
  signingKey,
  verifyingKey,
  type CertificateValidity as Validity,
} from './certificate-profiles.js'

export type { Validity }

/**
 * A verifier's access certificates (OID4VP 1.0 §5.9.3 x509_san_dns / x509_hash, HAIP 1.0 §5):
 * a root of the verifier's own (RFC 5280 §4.2.1.9 CA, path length 0) and the access certificate
 * it issues, whose key signs request objects and whose SAN dNSName is the host the verifier's
 * response_uri is on. ECDSA P-256 with SHA-256 (HAIP 1.0 §7), made with @peculiar/x509.
 */

/** A subject naming the verifier (its profile's name, else "Verifier"). */
export function verifierSubject(name: string | undefined, suffix: string): x509.JsonName {
  const base = (name ?? '').slice(0, CN_MAX - suffix.length - 1).trim() || 'Verifier'
  return [{ CN: [`${base} ${suffix}`] }]
}

/** The verifier's own root: a CA issuing its access certificates only. */
export const verifierRoot = selfSignedCa

/** The access certificate: digitalSignature only, SAN dNSName the service's host (§5.9.3 x509_san_dns). */
export async function accessCertificate(input: {
  root: x509.X509Certificate
  rootKey: KeyObject
  subject: x509.JsonName
  publicKey: KeyObject
  dnsName: string
  validity: Validity
}): Promise<x509.X509Certificate> {
  const publicKey = await verifyingKey(input.publicKey)
  return x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: input.subject,
    issuer: input.root.subject,
    ...input.validity,
    signingAlgorithm: ECDSA_SHA256,
    publicKey,
    signingKey: await signingKey(input.rootKey),
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: input.dnsName }]),
      await x509.AuthorityKeyIdentifierExtension.create(await input.root.publicKey.export()),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
    ],
  })
}

/** A PKCS#10 request (RFC 2986) for an access certificate from an outside CA, asking for the same usages and SAN. */
export async function accessCertificateRequest(
  subject: x509.JsonName,
  dnsName: string,
  keys: { privateKey: KeyObject; publicKey: KeyObject },
): Promise<string> {
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys: { privateKey: await signingKey(keys.privateKey), publicKey: await verifyingKey(keys.publicKey) },
    signingAlgorithm: ECDSA_SHA256,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: dnsName }]),
    ],
  })
  return csr.toString('pem')
}

/** The dNSNames of a certificate's subjectAltName (RFC 5280 §4.2.1.6). */
export function dnsNamesOf(der: Uint8Array): string[] {
  const san = new x509.X509Certificate(new Uint8Array(der)).getExtension(x509.SubjectAlternativeNameExtension)
  return san?.names.items.filter((n) => n.type === 'dns').map((n) => n.value) ?? []
}
