import { KeyObject, webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import type { DocumentSigner, DocumentSigners } from '../../src/modules/certificates/document-signer.js'

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0])

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const

/**
 * A stand-in for the certificates module (ISO/IEC 18013-5 Annex B.1): one test IACA root and one
 * Document Signer certificate under it per issuer DID, made with @peculiar/x509.
 */
export class FakeDocumentSigners implements DocumentSigners {
  private readonly made = new Map<string, Promise<DocumentSigner & { root: Uint8Array }>>()

  documentSigner(issuerDid: string): Promise<DocumentSigner & { root: Uint8Array }> {
    let signer = this.made.get(issuerDid)
    if (!signer) this.made.set(issuerDid, (signer = makeDocumentSigner(issuerDid)))
    return signer
  }

  async hostedRoots(): Promise<Uint8Array[]> {
    return Promise.all([...this.made.values()].map(async (s) => (await s).root))
  }
}

export async function makeDocumentSigner(issuerDid: string): Promise<DocumentSigner & { root: Uint8Array }> {
  const now = new Date(Date.now() - 60_000)
  const later = new Date(Date.now() + 365 * 86_400_000)
  const iacaKeys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const iaca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Test IACA, C=NL',
    notBefore: now,
    notAfter: later,
    keys: iacaKeys,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  })
  const dsKeys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const ds = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=Test Document Signer, C=NL',
    issuer: iaca.subject,
    notBefore: now,
    notAfter: later,
    publicKey: dsKeys.publicKey,
    signingKey: iacaKeys.privateKey,
    signingAlgorithm: EC,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  })
  return {
    issuerDid,
    privateKey: KeyObject.from(dsKeys.privateKey as unknown as webcrypto.CryptoKey),
    chain: [new Uint8Array(ds.rawData)],
    root: new Uint8Array(iaca.rawData),
  }
}
