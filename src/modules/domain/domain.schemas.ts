import { Type, type Static } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'

/** Checked in full by normalizeDomain (IDNA, labels, special-use names); the schema bounds the input. */
const DomainInput = Type.String({
  minLength: 1,
  maxLength: 300,
  description: 'A bare domain name (no scheme, path or port); Unicode names are converted to punycode',
})
export const METHODS = ['well_known', 'dns_txt', 'did_configuration'] as const
const Method = Type.Union(
  METHODS.map((m) => Type.Literal(m)),
  {
    description:
      'well_known: the token in https://<domain>/.well-known/credential-service-verification.txt; dns_txt: the token as a TXT record at _credential-service-challenge.<domain>; did_configuration: a Domain Linkage Credential in https://<domain>/.well-known/did-configuration.json (DIF Well Known DID Configuration)',
  },
)
const ChallengeId = Type.String({ minLength: 1, maxLength: 100 })
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

export const ChallengeBody = Type.Object({ did: Did, domain: DomainInput }, { additionalProperties: false })

export const VerifyBody = Type.Object(
  {
    did: Did,
    domain: DomainInput,
    method: Method,
    challenge_id: Type.Optional(
      Type.String({ ...ChallengeId, description: 'Default: the latest challenge of this DID for the domain' }),
    ),
  },
  { additionalProperties: false },
)
export type VerifyInput = Static<typeof VerifyBody>

export const StatusQuery = Type.Object({ domain: Type.Optional(DomainInput) }, { additionalProperties: false })

export const Challenge = Type.Object({
  id: Type.String(),
  did: Type.String(),
  domain: Type.String({ description: 'Canonical ASCII (punycode) form' }),
  domain_unicode: Type.String(),
  token: Type.String(),
  created_at: Type.String(),
  expires_at: Type.String(),
  well_known: Type.Object({
    url: Type.String(),
    content: Type.String({ description: 'The token, on a line of its own (text/plain)' }),
  }),
  dns_txt: Type.Object({ name: Type.String(), type: Type.Literal('TXT'), value: Type.String() }),
  did_configuration: Type.Object({
    url: Type.String(),
    origin: Type.String({ description: 'vc.credentialSubject.origin of the Domain Linkage Credential' }),
    description: Type.String(),
  }),
})

export const DomainRecord = Type.Object({
  did: Type.String(),
  domain: Type.String(),
  domain_unicode: Type.String(),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('verified'),
    Type.Literal('failed'),
    Type.Literal('expired'),
  ]),
  verified: Type.Boolean(),
  method: Nullable(Type.String()),
  verified_at: Nullable(Type.String()),
  valid_until: Nullable(
    Type.String({ description: 'For did_configuration: the expiry of the Domain Linkage Credential' }),
  ),
  last_checked_at: Nullable(Type.String()),
  last_error: Nullable(Type.String({ description: 'Why the last check failed (a verified status still stands)' })),
  challenge: Nullable(
    Type.Object({
      id: Type.String(),
      token: Type.String(),
      status: Type.Union([Type.Literal('open'), Type.Literal('used'), Type.Literal('expired')]),
      expires_at: Type.String(),
    }),
  ),
  created_at: Type.String(),
  updated_at: Type.String(),
})
