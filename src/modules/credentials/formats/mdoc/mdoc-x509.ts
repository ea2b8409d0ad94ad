import { BasicConstraintsExtension, ExtendedKeyUsageExtension, X509Certificate } from '@peculiar/x509'
import { DS_EXTENDED_KEY_USAGE } from './mdoc-ids.js'

/** Why a Document Signer chain is refused; `issuer` covers every untrusted or invalid path. */
export class MdocChainError extends Error {}

const MAX_DEPTH = 5

const sameDer = (a: X509Certificate, b: X509Certificate): boolean =>
  Buffer.from(a.rawData).equals(Buffer.from(b.rawData))

function checkValidity(cert: X509Certificate, now: Date): void {
  if (now < cert.notBefore || now > cert.notAfter)
    throw new MdocChainError(`certificate ${cert.subject} is not valid at ${now.toISOString()}`)
}

/** An issuing certificate must be a CA (RFC 5280 §4.2.1.9; IACA profile, ISO/IEC 18013-5 Table B.1). */
function checkCa(cert: X509Certificate): void {
  if (!cert.getExtension(BasicConstraintsExtension)?.ca)
    throw new MdocChainError(`certificate ${cert.subject} is not a CA and cannot issue certificates`)
}

async function signs(issuer: X509Certificate, subject: X509Certificate): Promise<boolean> {
  if (issuer.subject !== subject.issuer) return false
  try {
    return await subject.verify({ publicKey: issuer.publicKey, signatureOnly: true })
  } catch {
    return false
  }
}

/**
 * Validates the x5chain of an IssuerAuth (ISO/IEC 18013-5 §9.3.3, RFC 5280 §6.1 reduced to what an
 * mdoc chain needs): from the Document Signer (first) up through the given intermediates to one of
 * `trustAnchors` (DER), every signature and every validity period checked at `now`, issuing
 * certificates must be CAs, and the DS certificate, if it carries an extended key usage, must name
 * 1.0.18013.5.1.2 (Annex B.1.4). A trust anchor equal to a certificate of the chain (a pinned DS)
 * ends the path at that certificate. Throws MdocChainError.
 */
export async function verifyDocumentSignerChain(input: {
  x5chain: Uint8Array[]
  trustAnchors: Uint8Array[]
  now: Date
}): Promise<X509Certificate[]> {
  const [leafDer, ...rest] = input.x5chain
  if (!leafDer) throw new MdocChainError('the issuer signature carries no certificate (x5chain)')
  if (input.trustAnchors.length === 0) throw new MdocChainError('no trust anchor is configured')
  const parse = (der: Uint8Array, what: string): X509Certificate => {
    try {
      return new X509Certificate(new Uint8Array(der))
    } catch (cause) {
      throw new MdocChainError(`${what} is not a readable certificate`, { cause })
    }
  }
  const leaf = parse(leafDer, 'the Document Signer certificate')
  const intermediates = rest.map((der) => parse(der, 'a certificate of x5chain'))
  const anchors = input.trustAnchors.map((der) => parse(der, 'a trust anchor'))

  const eku = leaf.getExtension(ExtendedKeyUsageExtension)
  if (eku && !eku.usages.map(String).includes(DS_EXTENDED_KEY_USAGE))
    throw new MdocChainError(`the Document Signer certificate lacks the extended key usage ${DS_EXTENDED_KEY_USAGE}`)

  const path = [leaf]
  let current = leaf
  for (let depth = 0; depth <= MAX_DEPTH; depth++) {
    checkValidity(current, input.now)
    if (anchors.some((a) => sameDer(a, current))) return path
    const anchor = await findSigner(anchors, current)
    if (anchor) {
      checkCa(anchor)
      checkValidity(anchor, input.now)
      return [...path, anchor]
    }
    const next = await findSigner(
      intermediates.filter((c) => !path.some((p) => sameDer(p, c))),
      current,
    )
    if (!next) throw new MdocChainError(`no trusted certificate issued ${current.subject}`)
    checkCa(next)
    path.push(next)
    current = next
  }
  throw new MdocChainError('the certificate chain is too long')
}

async function findSigner(candidates: X509Certificate[], subject: X509Certificate) {
  for (const candidate of candidates) if (await signs(candidate, subject)) return candidate
  return undefined
}

/** The countryName of a certificate's subject (DER); undefined when it names none. */
export function subjectCountry(der: Uint8Array): string | undefined {
  return new X509Certificate(new Uint8Array(der)).subjectName.getField('C')[0]
}
