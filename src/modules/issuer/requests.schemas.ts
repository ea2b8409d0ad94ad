import { Type } from '@sinclair/typebox'
import type { RequestRow } from './requests.repository.js'

export const CredentialRequest = Type.Object({
  id: Type.String(),
  holder_did: Type.String(),
  issuer_did: Type.String(),
  schema_id: Type.String(),
  offer_id: Type.Union([Type.String(), Type.Null()]),
  credential_type: Type.String(),
  attributes: Type.Record(Type.String(), Type.Unknown()),
  message: Type.String(),
  status: Type.String({ description: 'pending, approved or rejected' }),
  format: Type.Union([Type.String(), Type.Null()], {
    description: "The format the credential is issued in on approval (asked for, or the offer's); null: jwt_vc_json",
  }),
  credential_id: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  decided_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
})

export const RequestStatusQuery = Type.Optional(
  Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
)

export function requestView(r: RequestRow) {
  const { approval_challenge: _hidden, ...rest } = r
  return {
    ...rest,
    decided_at: r.decided_at && new Date(r.decided_at).toISOString(),
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  }
}
