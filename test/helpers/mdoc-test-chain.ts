/**
 * A test IACA root and Document Signer (ISO/IEC 18013-5 Annex B.1.2, B.1.4), made with
 * @peculiar/x509 on WebCrypto P-256: what a real issuer would hold, minus the HSM.
 */
import { KeyObject, webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const
const DAY = 86_400_000

export interface TestChain {
  iacaDer: Uint8Array
  dsDer: Uint8Array
  dsPrivateKey: KeyObject
}

export async function makeTestChain(
  options: { country?: string; notBefore?: Date; notAfter?: Date; dsEku?: string } = {},
): Promise<TestChain> {
  const country = options.country ?? 'NL'
  const notBefore = options.notBefore ?? new Date(Date.now() - DAY)
  const notAfter = options.notAfter ?? new Date(Date.now() + 365 * DAY)
  const iacaKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const dsKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const iaca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `C=${country}, CN=Test IACA`,
    notBefore,
    notAfter,
    keys: iacaKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  })
  const ds = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: `C=${country}, CN=Test Document Signer`,
    issuer: iaca.subject,
    notBefore,
    notAfter,
    publicKey: dsKeys.publicKey,
    signingKey: iacaKeys.privateKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([options.dsEku ?? '1.0.18013.5.1.2'], true),
    ],
  })
  return {
    iacaDer: new Uint8Array(iaca.rawData),
    dsDer: new Uint8Array(ds.rawData),
    dsPrivateKey: KeyObject.from(dsKeys.privateKey),
  }
}
