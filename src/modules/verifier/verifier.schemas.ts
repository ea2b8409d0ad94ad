import { Type, type Static } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { FREE_FORM_KEYWORD } from '../../json-limits.js'

const Url = Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' })
const Label = Type.String({ minLength: 1, maxLength: 100 })

export const VerifierBody = Type.Object(
  {
    did: Type.Optional(Did),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    website: Type.Optional(Url),
    logo_url: Type.Optional(Url),
  },
  { additionalProperties: false },
)

export const Verifier = Type.Object({
  did: Type.String(),
  name: Type.String(),
  description: Type.String(),
  website: Type.Union([Type.String(), Type.Null()]),
  logo_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
})

export const RequiredCredential = Type.Object(
  {
    credential_type: Label,
    issuer_did: Type.Optional(Did),
    schema_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'The schema the credential must be issued under' }),
    ),
    required_attributes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 })),
    format: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'The one format to ask for it in over OpenID4VP (`mso_mdoc`, `dc+sd-jwt`, `jwt_vc_json`, …); by default every format that can carry it',
      }),
    ),
  },
  { additionalProperties: false },
)

export const OPERATORS = ['>=', '>', '<=', '<'] as const
export const RequiredPredicate = Type.Object(
  {
    attribute: Type.String({ minLength: 1, maxLength: 64 }),
    operator: Type.Union(OPERATORS.map((o) => Type.Literal(o))),
    value: Type.Union([Type.Number(), Type.String({ format: 'date', description: 'YYYY-MM-DD, for date attributes' })]),
    credential_type: Type.Optional(Label),
  },
  { additionalProperties: false },
)

const RequestDefinition = {
  presentation_type: Label,
  required_credentials: Type.Array(RequiredCredential, { maxItems: 20 }),
  required_predicates: Type.Optional(Type.Array(RequiredPredicate, { maxItems: 20 })),
  purpose: Type.String({ minLength: 1, maxLength: 1000 }),
  callback_url: Type.Optional(Url),
}

/** Spec body; with `preset_id` the definition comes from the preset and may be left out. */
export const CreateRequestBody = Type.Object(
  {
    verifier_did: Did,
    presentation_type: Type.Optional(RequestDefinition.presentation_type),
    required_credentials: Type.Optional(RequestDefinition.required_credentials),
    required_predicates: RequestDefinition.required_predicates,
    purpose: Type.Optional(RequestDefinition.purpose),
    callback_url: RequestDefinition.callback_url,
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
    preset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    // Addressed to one holder: nobody else can take, answer or close it.
    holder_did: Type.Optional(Did),
    // OpenID4VP 1.0 (docs/openid4vp.md), beside the spec's fields.
    response_mode: Type.Optional(
      Type.Union([Type.Literal('direct_post'), Type.Literal('direct_post.jwt')], {
        description:
          'OpenID4VP response mode: direct_post (default) or direct_post.jwt (encrypted to a key of this request)',
      }),
    ),
    client_id_prefix: Type.Optional(
      Type.Union(
        [
          Type.Literal('decentralized_identifier'),
          Type.Literal('x509_san_dns'),
          Type.Literal('x509_hash'),
          Type.Literal('redirect_uri'),
        ],
        {
          description:
            "OpenID4VP client id prefix (§5.9.3): decentralized_identifier (default: signed by the verifier's did:web), x509_san_dns or x509_hash (signed by the verifier's access certificate, x5c), or redirect_uri (unsigned, development only)",
        },
      ),
    ),
    request_uri_method: Type.Optional(
      Type.Union([Type.Literal('get'), Type.Literal('post')], {
        description:
          'OpenID4VP 1.0 §5.10: get (default), or post: the wallet POSTs wallet_metadata and wallet_nonce to request_uri and gets a request object carrying that nonce',
      }),
    ),
    redirect_uri: Type.Optional(
      Type.String({
        format: 'uri',
        maxLength: 2048,
        pattern: '^https?://',
        description: 'OpenID4VP: where the wallet sends the user once the response is accepted',
      }),
    ),
    dcql_trusted_authorities: Type.Optional(
      Type.Boolean({
        description:
          'OpenID4VP 1.0 §6.1.1: name the roots this request trusts (hosted IACA roots, trust sources, trusted_roots) as trusted_authorities (aki) on its mdoc queries',
      }),
    ),
    transaction_data: Type.Optional(
      Type.Array(
        Type.Object(
          {
            type: Type.String({ minLength: 1, maxLength: 200 }),
            credential_ids: Type.Optional(
              Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20 }),
            ),
            transaction_data_hashes_alg: Type.Optional(
              Type.Array(Type.String({ minLength: 1, maxLength: 20 }), { minItems: 1, maxItems: 5 }),
            ),
          },
          {
            // The fields of a transaction data type are the type's own (OID4VP 1.0 §5.1): open, bounded by count and by the encoded size.
            additionalProperties: true,
            maxProperties: 30,
            [FREE_FORM_KEYWORD]: true,
            description:
              'A transaction data item (OID4VP 1.0 §5.1): its type, the credential query ids that may authorize it (default: all), and its own fields',
          },
        ),
        {
          minItems: 1,
          maxItems: 10,
          description:
            "OpenID4VP: transaction data the holder authorizes; an SD-JWT VC's KB-JWT must carry each item's hash (transaction_data_hashes, §8.4)",
        },
      ),
    ),
    trusted_roots: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 16_384 }), {
        maxItems: 10,
        description:
          "OpenID4VP: X.509 certificates (PEM) this request trusts besides the hosted issuers' roots and the verifier's trust sources: the IACA roots of mdoc issuers elsewhere",
      }),
    ),
  },
  { additionalProperties: false },
)
export type CreateRequestInput = Static<typeof CreateRequestBody>

export const PresetBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    ...RequestDefinition,
    validity_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 30 * 86_400 })),
  },
  { additionalProperties: false },
)
export type PresetInput = Static<typeof PresetBody>

export const PresentationRequest = Type.Object({
  id: Type.String(),
  verifier_did: Type.String(),
  presentation_type: Type.String(),
  required_credentials: Type.Array(
    Type.Object({
      credential_type: Type.String(),
      issuer_did: Type.Optional(Type.String()),
      schema_id: Type.Optional(Type.String()),
      required_attributes: Type.Optional(Type.Array(Type.String())),
      format: Type.Optional(Type.String()),
    }),
  ),
  required_predicates: Type.Array(
    Type.Object({
      attribute: Type.String(),
      operator: Type.String(),
      value: Type.Union([Type.Number(), Type.String()]),
      credential_type: Type.Optional(Type.String()),
    }),
  ),
  purpose: Type.String(),
  callback_url: Type.Union([Type.String(), Type.Null()]),
  nonce: Type.String(),
  status: Type.String({ description: 'pending at creation; expired once expires_at has passed while pending' }),
  preset_id: Type.Union([Type.String(), Type.Null()]),
  holder_did: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  expires_at: Type.String(),
})

/** Each holder's answer through the spec's inbox (approve or reject), so a decline of an unaddressed request is seen too. */
export const RequestAnswers = Type.Array(
  Type.Object({
    holder_did: Type.String(),
    status: Type.Union([Type.Literal('approved'), Type.Literal('rejected')]),
    reason: Type.Union([Type.String(), Type.Null()], { description: "the holder's reason for a rejection" }),
    at: Type.String({ format: 'date-time' }),
  }),
  { description: "The holders' answers to this request, oldest first (the request's own verifier only)" },
)

/** The OpenID4VP Authorization Request of a request (docs/openid4vp.md); absent when DCQL cannot express it. */
export const Oid4vpFields = {
  authorization_request_uri: Type.Optional(
    Type.String({ description: 'openid4vp:// URI for a wallet (client_id and request_uri, or the request by value)' }),
  ),
  authorization_request_qr: Type.Optional(
    Type.String({ description: 'authorization_request_uri as a QR code (SVG data URL)' }),
  ),
  request_uri: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  openid4vp: Type.Optional(
    Type.Object({
      client_id: Type.String(),
      response_uri: Type.String(),
      response_mode: Type.String(),
      state: Type.String(),
      answer: Type.Union([Type.String(), Type.Null()], {
        description:
          'accepted, refused, or declined (a wallet error response closed this request addressed to a holder); null while open',
      }),
      holder_response: Type.Union(
        [
          Type.Object({
            error: Type.String({ description: 'the OAuth error code, e.g. access_denied when the holder declined' }),
            error_description: Type.Union([Type.String(), Type.Null()]),
            at: Type.String({ format: 'date-time' }),
          }),
          Type.Null(),
        ],
        {
          description:
            'The latest wallet error response (OpenID4VP 1.0 §8.5); it closed the request only if the request is addressed to a holder (docs/openid4vp.md)',
        },
      ),
      refused_attempts: Type.Object({
        count: Type.Integer({ description: 'Responses refused without answering the request, all of them' }),
        recent: Type.Array(
          Type.Object({
            received_at: Type.String({ format: 'date-time' }),
            holder: Type.Union([Type.String(), Type.Null()], {
              description: 'Holder the response names (proven if holder_proof_verified)',
            }),
            holder_proof_verified: Type.Boolean(),
            errors: Type.Array(Type.String()),
          }),
          { description: 'The last ten, newest first' },
        ),
      }),
    }),
  ),
}

export const Preset = Type.Object({
  id: Type.String(),
  verifier_did: Type.String(),
  name: Type.String(),
  presentation_type: Type.String(),
  required_credentials: PresentationRequest.properties.required_credentials,
  required_predicates: PresentationRequest.properties.required_predicates,
  purpose: Type.String(),
  callback_url: Type.Union([Type.String(), Type.Null()]),
  validity_seconds: Type.Integer(),
  created_at: Type.String(),
})
