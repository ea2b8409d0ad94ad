import { Type, type Static } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'

const Url = Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' })
const Label = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9 ._:/-]*$' })

export const IssuerBody = Type.Object(
  {
    did: Type.Optional(Did),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    website: Type.Optional(Url),
    logo_url: Type.Optional(Url),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    country: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{2}$',
        description:
          "ISO 3166-1 alpha-2: the country its mdoc certificates (IACA, Document Signer) name, which an mDL's issuing_country must match (ISO/IEC 18013-5 Annex B, §9.3.3). Set it before the first mdoc",
      }),
    ),
    signing_did_method: Type.Optional(
      Type.Union([Type.Literal('web'), Type.Literal('key')], {
        description:
          'How credentials are signed: "web" (default) as a did:web hosted here at /issuers/<id>/did.json; "key" as service-generated did:keys, whose own keys sign',
      }),
    ),
  },
  { additionalProperties: false },
)
export type IssuerBody = Static<typeof IssuerBody>

export const IssuerUpdateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    website: Type.Optional(Type.Union([Url, Type.Null()])),
    logo_url: Type.Optional(Type.Union([Url, Type.Null()])),
    email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Null()])),
    country: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{2}$',
        description:
          "ISO 3166-1 alpha-2: the country its mdoc certificates (IACA, Document Signer) name, which an mDL's issuing_country must match (ISO/IEC 18013-5 Annex B, §9.3.3). Set it before the first mdoc",
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type IssuerUpdateBody = Static<typeof IssuerUpdateBody>

export const Issuer = Type.Object({
  did: Type.String(),
  name: Type.String(),
  description: Type.String(),
  website: Type.Union([Type.String(), Type.Null()]),
  logo_url: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  country: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  require_step_up: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
})

const SigningMethod = Type.Union([Type.Literal('web'), Type.Literal('key'), Type.Literal('self')])

export const SigningBody = Type.Object({ signing_did_method: SigningMethod }, { additionalProperties: false })

export const SigningView = Type.Object({
  signing_did_method: SigningMethod,
  signing_did: Type.String({ description: 'The DID new JWT credentials name as issuer (Ed25519 key)' }),
  signing_dids: Type.Array(
    Type.Object({
      did: Type.String(),
      method: SigningMethod,
      key_type: Type.Union([Type.String(), Type.Null()]),
      current: Type.Boolean(),
    }),
  ),
})

export const DATA_TYPES = ['string', 'number', 'boolean', 'date', 'email', 'url', 'file', 'object', 'array'] as const

export const SchemaAttribute = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    data_type: Type.Union(DATA_TYPES.map((t) => Type.Literal(t))),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    required: Type.Optional(Type.Boolean()),
    always_disclosed: Type.Optional(
      Type.Boolean({
        description:
          'SD-JWT VC (dc+sd-jwt): a plain claim every presentation shows; otherwise the holder chooses whether to disclose it',
      }),
    ),
  },
  { additionalProperties: false },
)

/**
 * Where a schema's credentials sit in an mdoc (ISO/IEC 18013-5 §8.3.2.1): the document type and the
 * namespace of its data elements. Without it, an mdoc of the schema is not offered.
 */
export const MdocPlacement = Type.Object(
  {
    doctype: Type.String({ minLength: 3, maxLength: 200, pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)+$' }),
    namespace: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 200,
        pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)+$',
        description: 'Default: the doctype',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'mso_mdoc (ISO/IEC 18013-5): the doctype and namespace of credentials of this schema',
  },
)

export const SchemaBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    version: Type.String({ minLength: 1, maxLength: 50 }),
    attributes: Type.Array(SchemaAttribute, { minItems: 1, maxItems: 100 }),
    extensions_allowed: Type.Optional(Type.Boolean()),
    allowed_extensions: Type.Optional(Type.Array(Label, { maxItems: 50 })),
    evidence_allowed: Type.Optional(Type.Boolean()),
    allowed_evidence: Type.Optional(Type.Array(Label, { maxItems: 50 })),
    anonymous_credentials: Type.Optional(
      Type.Boolean({
        description:
          'Also sign credentials of this schema with BBS (selective disclosure, predicates). Default true; false issues JWT-VC only',
      }),
    ),
    mdoc: Type.Optional(MdocPlacement),
  },
  { additionalProperties: false },
)
export type SchemaBody = Static<typeof SchemaBody>

export const SchemaUpdateBody = Type.Partial(SchemaBody, { additionalProperties: false, minProperties: 1 })
export type SchemaUpdateBody = Static<typeof SchemaUpdateBody>

export const Schema = Type.Object({
  id: Type.String(),
  issuer_did: Type.String(),
  name: Type.String(),
  description: Type.String(),
  version: Type.String(),
  attributes: Type.Array(
    Type.Object({
      name: Type.String(),
      data_type: Type.String(),
      description: Type.String(),
      required: Type.Boolean(),
      always_disclosed: Type.Optional(Type.Boolean()),
    }),
  ),
  extensions_allowed: Type.Boolean(),
  allowed_extensions: Type.Array(Type.String()),
  evidence_allowed: Type.Boolean(),
  allowed_evidence: Type.Array(Type.String()),
  ipfs_hash: Type.String(),
  on_chain: Type.Boolean(),
  blockchain_tx: Type.String(),
  anonymous_credentials: Type.Boolean(),
  mdoc: Type.Optional(
    Type.Union([Type.Object({ doctype: Type.String(), namespace: Type.String() }), Type.Null()], {
      description: 'mso_mdoc: its doctype and namespace; null when the schema has none',
    }),
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
})
