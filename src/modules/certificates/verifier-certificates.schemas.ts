import { Type } from '@sinclair/typebox'

const Pem = (description: string) => Type.String({ minLength: 1, maxLength: 65_536, description })

export const VerifierCertificate = Type.Object({
  use: Type.Union([Type.Literal('root'), Type.Literal('intermediate'), Type.Literal('access')], {
    description: 'root: the trust anchor; access: the certificate that signs request objects (x5c, OID4VP 1.0 §5.9.3)',
  }),
  pem: Type.String(),
  not_before: Type.String({ format: 'date-time' }),
  not_after: Type.String({ format: 'date-time' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('retired')]),
})

export const VerifierCertificateList = Type.Object({ certificates: Type.Array(VerifierCertificate) })
export const VerifierCertificateAnswer = Type.Object({ success: Type.Boolean(), certificate: VerifierCertificate })

const ChainPems = Type.Array(Pem('A CA certificate, PEM'), {
  minItems: 1,
  maxItems: 5,
  description: 'The CA certificates above the access certificate, its issuer first, the self-signed root last',
})

export const ImportAccessBody = Type.Object(
  {
    certificate_pem: Pem('The access certificate, PEM'),
    private_key_pem: Pem('Its P-256 private key, unencrypted PKCS#8 PEM (RFC 7468 §10)'),
    chain_pems: ChainPems,
  },
  { additionalProperties: false },
)

export const SignedAccessBody = Type.Object(
  { certificate_pem: Pem('The access certificate the CA made from the CSR, PEM'), chain_pems: ChainPems },
  { additionalProperties: false },
)

export const AccessCsrAnswer = Type.Object({ csr_pem: Type.String({ description: 'PKCS#10 request (RFC 2986), PEM' }) })
