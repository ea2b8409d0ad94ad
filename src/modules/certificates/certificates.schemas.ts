import { Type } from '@sinclair/typebox'

/** PEM text: one certificate, a key or a request is a few KiB; 64 KiB refuses anything else early. */
const Pem = (description: string) => Type.String({ minLength: 1, maxLength: 65_536, description })

export const Certificate = Type.Object({
  use: Type.Union([
    Type.Literal('iaca'),
    Type.Literal('document_signer'),
    Type.Literal('credential'),
    Type.Literal('metadata'),
  ]),
  pem: Type.String(),
  not_before: Type.String({ format: 'date-time' }),
  not_after: Type.String({ format: 'date-time' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('retired')]),
})

export const CertificateList = Type.Object({ certificates: Type.Array(Certificate) })
export const CertificateAnswer = Type.Object({ success: Type.Boolean(), certificate: Certificate })

export const ImportBody = Type.Object(
  {
    certificate_pem: Pem('The Document Signer certificate (ISO/IEC 18013-5 Annex B.1.4), PEM'),
    private_key_pem: Pem('Its P-256 private key, unencrypted PKCS#8 PEM (RFC 7468 §10)'),
    iaca_pem: Pem('The certificate of the IACA that issued it, PEM'),
  },
  { additionalProperties: false },
)

export const SignedCertificateBody = Type.Object(
  {
    certificate_pem: Pem('The Document Signer certificate the IACA made from the CSR, PEM'),
    iaca_pem: Pem('The certificate of that IACA, PEM'),
  },
  { additionalProperties: false },
)

export const CsrAnswer = Type.Object({ csr_pem: Type.String({ description: 'PKCS#10 request (RFC 2986), PEM' }) })
