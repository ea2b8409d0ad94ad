import { Type, type Static } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { PageQuery } from '../shared/route-helpers.js'

export const ACCESS_LEVELS = ['read_only', 'read_write', 'full_access', 'one_time', 'write', 'delete'] as const
export type AccessLevel = (typeof ACCESS_LEVELS)[number]
export const EXPIRATION_POLICIES = ['fixed_date', 'one_time_use', 'indefinite'] as const
export type ExpirationPolicy = (typeof EXPIRATION_POLICIES)[number]
export const CONSENT_STATUSES = ['active', 'revoked', 'expired'] as const
export type ConsentStatus = (typeof CONSENT_STATUSES)[number]

/**
 * A string enum as JSON Schema `enum` rather than a union of literals: Ajv then answers
 * "must be equal to one of the allowed values" instead of one error per literal.
 */
const StringEnum = <T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })

/** Spec "POST /api/wallet/:did/consents"; `expires_at` with a fixed_date policy only (checked in the service). */
export const GrantConsentBody = Type.Object(
  {
    verifier_did: Did,
    purpose: Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: '\\S',
      description: 'Stored with the consent; not blank',
    }),
    data_categories: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: 50,
        uniqueItems: true,
        default: [],
        description: 'Default: empty list',
      }),
    ),
    access_level: Type.Optional(StringEnum(ACCESS_LEVELS, { default: 'read_only' })),
    expiration_policy: Type.Optional(StringEnum(EXPIRATION_POLICIES, { default: 'indefinite' })),
    expires_at: Type.Optional(
      Type.String({
        format: 'date-time',
        maxLength: 64,
        description: 'ISO 8601 with a time zone; required with fixed_date, refused otherwise; in the future',
      }),
    ),
  },
  { additionalProperties: false },
)
export type GrantConsentInput = Static<typeof GrantConsentBody>

export const ConsentParams = Type.Object({ did: Did, consent_id: Type.String({ minLength: 1, maxLength: 100 }) })

export const ListConsentsQuery = Type.Composite([
  PageQuery,
  Type.Object({
    verifier_did: Type.Optional(Did),
    status: Type.Optional(
      StringEnum(CONSENT_STATUSES, { description: 'active: usable now; expired: past its date or used; revoked' }),
    ),
  }),
])

const NullableString = Type.Union([Type.String(), Type.Null()])

/** The spec's Consent (id, holder_did, verifier_did, purpose, data_categories, revoked, expired, on_chain) and the stored fields. */
export const Consent = Type.Object({
  id: Type.String(),
  holder_did: Type.String(),
  verifier_did: Type.String(),
  purpose: Type.String(),
  data_categories: Type.Array(Type.String()),
  access_level: Type.String(),
  expiration_policy: Type.String(),
  expires_at: NullableString,
  revoked: Type.Boolean(),
  revoked_at: NullableString,
  expired: Type.Boolean({ description: 'fixed_date: expires_at has passed; one_time_use: used by a presentation' }),
  status: Type.String({ description: 'revoked, expired or active' }),
  used_at: NullableString,
  used_by: Type.Union([Type.String({ description: 'the presentation that used a one-time consent' }), Type.Null()]),
  on_chain: Type.Boolean({
    description: 'false until the consent is anchored on chain (not configured in this build)',
  }),
  blockchain_tx: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
})
export type ConsentView = Static<typeof Consent>
