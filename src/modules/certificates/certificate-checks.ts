import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import { UnprocessableError, ValidationError } from '../../errors.js'
import { MDOC_DS_EKU } from './certificate-profiles.js'

/**
 * What an issuer brings from an outside IACA is read with node:crypto (signatures, key match,
 * issuer name) and @peculiar/x509 (extensions), and checked against ISO/IEC 18013-5 Annex B.1.4
 * before anything is stored. Unreadable input is 400; readable but refused is 422.
 */
export interface CheckedCertificate {
  cert: X509Certificate
  pem: string
  notBefore: Date
  notAfter: Date
}

const PEM_CERTIFICATE = /^\s*-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*$/

export function readCertificate(pem: string, field: string): CheckedCertificate {
  if (!PEM_CERTIFICATE.test(pem)) throw new ValidationError(`${field} must be one PEM certificate (BEGIN CERTIFICATE)`)
  let cert: X509Certificate
  let parsed: x509.X509Certificate
  try {
    cert = new X509Certificate(pem)
    parsed = new x509.X509Certificate(cert.raw)
  } catch (error) {
    throw new ValidationError(`${field} is not a readable X.509 certificate`, { cause: error })
  }
  return { cert, pem: cert.toString(), notBefore: parsed.notBefore, notAfter: parsed.notAfter }
}

/** The PEM label of an unencrypted PKCS#8 private key (RFC 7468 §10). */
const PKCS8_LABEL = 'PRIVATE KEY'
const PKCS8_PEM = new RegExp(`^\\s*-----BEGIN ${PKCS8_LABEL}-----`)

/** A PKCS#8 PEM private key (RFC 5208), which must be P-256 (Annex B: ECDSA with P-256 here). */
export function readPrivateKey(pem: string, field: string): KeyObject {
  if (!PKCS8_PEM.test(pem))
    throw new ValidationError(`${field} must be a PKCS#8 PEM private key (RFC 7468 label "${PKCS8_LABEL}")`)
  let key: KeyObject
  try {
    key = createPrivateKey({ key: pem, format: 'pem' })
  } catch (error) {
    throw new ValidationError(`${field} is not a readable PKCS#8 private key`, { cause: error })
  }
  if (!isP256(key)) throw new UnprocessableError(`${field} must be an EC P-256 key`)
  return key
}

/**
 * The Document Signer chain of Annex B: `ds` issued and signed by `iaca`, a CA certificate, with
 * the mdoc DS extended key usage, both valid at `now`, the DS not outliving its root.
 */
export function checkChain(ds: CheckedCertificate, iaca: CheckedCertificate, now: Date): void {
  if (!isP256(ds.cert.publicKey))
    throw new UnprocessableError('The Document Signer certificate must certify a P-256 key')
  if (!iaca.cert.ca) throw new UnprocessableError('The IACA certificate is not a CA certificate (basicConstraints)')
  if (!ds.cert.checkIssued(iaca.cert) || !ds.cert.verify(iaca.cert.publicKey))
    throw new UnprocessableError('The Document Signer certificate is not issued and signed by the IACA certificate')
  const eku = new x509.X509Certificate(ds.cert.raw).getExtension(x509.ExtendedKeyUsageExtension)
  if (!eku?.usages.includes(MDOC_DS_EKU))
    throw new UnprocessableError(`The Document Signer certificate lacks the mdoc extended key usage ${MDOC_DS_EKU}`)
  for (const [what, c] of [
    ['Document Signer', ds],
    ['IACA', iaca],
  ] as const) {
    if (now < c.notBefore || now > c.notAfter)
      throw new UnprocessableError(
        `The ${what} certificate is not valid now (${c.notBefore.toISOString()} to ${c.notAfter.toISOString()})`,
      )
  }
  if (ds.notAfter > iaca.notAfter)
    throw new UnprocessableError('The Document Signer certificate outlives its IACA certificate')
}

export function checkKeyMatches(ds: CheckedCertificate, privateKey: KeyObject): void {
  if (!ds.cert.checkPrivateKey(privateKey))
    throw new UnprocessableError('The private key does not match the Document Signer certificate')
}

function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1'
}
