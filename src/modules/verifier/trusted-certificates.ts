import { X509Certificate } from '@peculiar/x509'
import { ValidationError } from '../../errors.js'

/** A certificate a verifier trusts, read once. */
export interface TrustedCertificate {
  pem: string
  der: Uint8Array
  subject: string
  notAfter: Date
}

const PEM_CERTIFICATE = /^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\s*$/

/**
 * PEM certificates (RFC 7468 §5) a verifier or a request trusts: each one X.509 certificate
 * (RFC 5280, read by @peculiar/x509) still valid at `now`. A private key, or anything else, is
 * refused without echoing it back.
 */
export function readTrustedCertificates(pems: readonly string[], field: string, now: Date): TrustedCertificate[] {
  return pems.map((text, i) => {
    const at = `${field}[${i}]`
    const refuse = (why: string) => new ValidationError(`${at} ${why}`, { details: { field: at } })
    if (/PRIVATE KEY-----/.test(text)) throw refuse('is a private key: give the certificate only')
    if (!PEM_CERTIFICATE.test(text.trim())) throw refuse('must be one PEM certificate (-----BEGIN CERTIFICATE-----)')
    let certificate: X509Certificate
    try {
      certificate = new X509Certificate(text.trim())
    } catch {
      throw refuse('is not a readable X.509 certificate')
    }
    if (certificate.notAfter < now) throw refuse(`expired on ${certificate.notAfter.toISOString()}`)
    return {
      pem: certificate.toString('pem'),
      der: new Uint8Array(certificate.rawData),
      subject: certificate.subject,
      notAfter: certificate.notAfter,
    }
  })
}

/** The certificates of `pems` that count at `now`: stored ones read again, an expired one left out. */
export function stillTrusted(pems: readonly string[], now: Date): TrustedCertificate[] {
  return pems.flatMap((pem) => {
    try {
      return readTrustedCertificates([pem], 'certificate', now)
    } catch {
      return []
    }
  })
}
