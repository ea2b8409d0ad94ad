import { Type, type Static } from '@sinclair/typebox'
import {
  ANONYMOUS_PROOF_FORMAT,
  ANONYMOUS_PROOF_TYPE,
  OPERATORS,
  RANGE_PROOF_PROTOCOL,
} from '../../crypto/bbs/anonymous-proof-format.js'
import { BBS_MESSAGE_LAYOUT } from '../../crypto/bbs/bbs-messages.js'
import { Did } from '../auth/auth.schemas.js'

/** Attribute names as schemas allow them (issuer.schemas.ts caps names at 64 characters). */
const AttributeName = Type.String({ minLength: 1, maxLength: 64 })
/** Each predicated attribute is one Bulletproofs++ statement, the costliest part of a derivation: a handful at most. */
export const MAX_PREDICATES = 8

export const Predicate = Type.Object(
  {
    attribute: AttributeName,
    operator: Type.Union(OPERATORS.map((o) => Type.Literal(o))),
    value: Type.Union(
      [Type.Number(), Type.String({ minLength: 10, maxLength: 10, description: 'YYYY-MM-DD, for date attributes' })],
      {
        description: 'Numbers: the bound. Dates: YYYY-MM-DD or an integer number of days since 1970-01-01',
      },
    ),
  },
  { additionalProperties: false },
)

export const AnonymousProofParams = Type.Object({
  did: Did,
  credential_id: Type.String({ minLength: 1, maxLength: 100 }),
})

export const AnonymousProofBody = Type.Object(
  {
    reveal: Type.Array(AttributeName, { maxItems: 100, description: 'Attributes to disclose' }),
    predicates: Type.Array(Predicate, {
      maxItems: MAX_PREDICATES,
      description: 'Predicates proven in zero knowledge on number and date attributes',
    }),
    nonce: Type.String({
      minLength: 1,
      maxLength: 256,
      description: "The verifier's nonce (the presentation request's)",
    }),
    verifier_did: Did,
  },
  { additionalProperties: false },
)
export type AnonymousProofBody = Static<typeof AnonymousProofBody>

const Bound = Type.Object(
  { attribute: Type.String(), min: Type.Integer(), max_exclusive: Type.Integer() },
  { description: 'min <= encoded(attribute) < max_exclusive (encoding: bbs-messages.ts)' },
)

/** The derived-proof object (docs/anonymous-proofs.md): what goes, as is, into vp.verifiableCredential. */
export const AnonymousProof = Type.Object({
  type: Type.Literal(ANONYMOUS_PROOF_TYPE),
  format: Type.Literal(ANONYMOUS_PROOF_FORMAT),
  layout_version: Type.Literal(BBS_MESSAGE_LAYOUT),
  issuer: Type.String({ maxLength: 2048 }),
  verification_method: Type.String({ maxLength: 4096 }),
  params_label: Type.String({ maxLength: 4096 }),
  range_proof: Type.Union([
    Type.Object(
      { protocol: Type.Literal(RANGE_PROOF_PROTOCOL), params_label: Type.String({ maxLength: 256 }) },
      {
        description:
          'How the bounds are proven (their statements are inside proof_value) and the label of the Bulletproofs++ setup',
      },
    ),
    Type.Null(),
  ]),
  credential_id: Type.String({ maxLength: 100 }),
  credential_type: Type.String({ maxLength: 256 }),
  schema_id: Type.String({ maxLength: 256 }),
  subject: Type.String({ maxLength: 2048 }),
  expires_at: Type.Union([Type.String({ maxLength: 40 }), Type.Null()]),
  credential_status: Type.Object({
    id: Type.String({ maxLength: 2048 }),
    type: Type.Literal('BitstringStatusListEntry'),
    statusPurpose: Type.Literal('revocation'),
    statusListIndex: Type.String({ maxLength: 12 }),
    statusListCredential: Type.String({ maxLength: 2048 }),
  }),
  attributes: Type.Array(Type.Tuple([AttributeName, Type.String({ maxLength: 16 })]), {
    maxItems: 200,
    description: 'Schema attributes in message order, with data types',
  }),
  message_count: Type.Integer({ minimum: 1, maximum: 256 }),
  revealed: Type.Record(Type.String(), Type.Unknown()),
  predicates: Type.Array(Predicate, { maxItems: MAX_PREDICATES }),
  bounds: Type.Array(Bound, { maxItems: MAX_PREDICATES }),
  nonce: Type.String({ maxLength: 256 }),
  audience: Type.String({ maxLength: 2048 }),
  proof_value: Type.String({
    maxLength: 65_536,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'The composite proof, base64url',
  }),
})
