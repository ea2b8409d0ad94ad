import { Type } from '@sinclair/typebox'
import { PresentationRequest } from '../verifier/verifier.schemas.js'

const Id = Type.String({ minLength: 1, maxLength: 100 })
/**
 * A presentation carries its credentials: generous, but bounded well under the body limit. A
 * VP-JWT (compact JWS), or the JSON text of a VCDM 2.0 presentation with a Data Integrity proof
 * (docs/formats.md "Presentations with Data Integrity proofs"); its nesting is bounded where it is read.
 */
const Jwt = Type.String({
  minLength: 1,
  maxLength: 512 * 1024,
  pattern: '^(?:[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\s*|\\s*\\{[\\s\\S]*\\}\\s*)$',
  description:
    'A VP-JWT, or the JSON text of a VP secured with a Data Integrity proof (eddsa-rdfc-2022, eddsa-jcs-2022)',
})
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])

export const RequestIdParams = Type.Object({ request_id: Id })
export const IdParams = Type.Object({ id: Id })

/** Exactly one of the two (checked in the service: unknown properties are stripped, not refused). */
export const TakeRequestBody = Type.Object(
  {
    request_id: Type.Optional(Id),
    qr_code_data: Type.Optional(
      Type.String({ minLength: 2, maxLength: 4096, description: 'The QR payload of the request' }),
    ),
  },
  { additionalProperties: false, description: 'The request id, or the QR payload that names it' },
)

export const ApproveBody = Type.Object(
  {
    credential_ids: Type.Array(Id, { minItems: 1, maxItems: 20 }),
    presentation_jwt: Jwt,
  },
  { additionalProperties: false },
)

export const RejectBody = Type.Optional(
  Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false }),
)

export const SubmitBody = Type.Object(
  {
    presentation_jwt: Jwt,
    request_id: Type.Optional(Id),
    presentation_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
)

export const VerifyBody = Type.Object(
  {
    presentation_jwt: Jwt,
    presentation: Type.Optional(
      Type.String({ maxLength: 512 * 1024, description: 'The serialized presentation, informative only' }),
    ),
  },
  { additionalProperties: false },
)

/** The spec's Presentation, plus request_id and the last verification result. */
export const Presentation = Type.Object({
  id: Type.String(),
  request_id: Nullable(Type.String()),
  prover_did: Type.String(),
  verifier_did: Type.String(),
  presentation_type: Type.String(),
  credential_ids: Type.Array(Type.String()),
  status: Type.String({ description: 'submitted, verified or failed' }),
  is_verified: Type.Boolean(),
  provided_attributes: Type.Array(Type.String()),
  revoked_attributes: Type.Array(Type.String()),
  created_at: Type.String(),
  verified_at: Nullable(Type.String()),
  verification_result: Nullable(Type.Object({}, { additionalProperties: true })),
})

/**
 * One presentation as its verifier or its holder reads it: with the VP as received, which the
 * verifier passes back to the verify route (a browser or CLI verifier has no other copy of it).
 */
export const PresentationWithJwt = Type.Composite([
  Presentation,
  Type.Object({
    presentation_jwt: Type.String({
      description: 'The VP as submitted (VP-JWT, or the OpenID4VP vp_token as received)',
    }),
  }),
])

export const InboxEntry = Type.Object({
  request_id: Type.String(),
  status: Type.String({ description: "pending, approved or rejected (the holder's answer)" }),
  request_status: Type.String({
    description: "the request's own status: pending, submitted, rejected, verified, failed, expired",
  }),
  reason: Nullable(Type.String()),
  presentation_id: Nullable(Type.String()),
  presentation_status: Nullable(Type.String()),
  updated_at: Type.String(),
})

export const VerificationResult = Type.Object({
  is_valid: Type.Boolean(),
  prover_did: Type.String(),
  verifier_did: Type.String(),
  presentation_type: Type.String(),
  credential_subjects: Type.Array(Type.Object({}, { additionalProperties: true })),
  proven_predicates: Type.Optional(
    Type.Array(
      Type.Object({
        attribute: Type.String(),
        operator: Type.String(),
        value: Type.Union([Type.Number(), Type.String()]),
        credential_id: Type.Union([Type.String(), Type.Null()]),
      }),
      {
        description:
          'each predicate a valid credential proved without disclosing the value (absent from results stored before it existed)',
      },
    ),
  ),
  errors: Type.Array(Type.String()),
  verified_at: Type.String(),
})

export { PresentationRequest }
