import { Type, type Static } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'

export const DeriveParams = Type.Object({ did: Did, credential_id: Type.String({ minLength: 1, maxLength: 100 }) })

/** JSON Pointers (RFC 6901) into the credential, each disclosed beside the statements its issuer made mandatory. */
export const DeriveBody = Type.Object(
  {
    pointers: Type.Array(Type.String({ maxLength: 512, pattern: '^(/.*)?$' }), {
      maxItems: 100,
      description: 'JSON Pointers of the claims to disclose, e.g. /credentialSubject/given_name',
    }),
  },
  { additionalProperties: false },
)
export type DeriveBody = Static<typeof DeriveBody>

/** The derived credential (a VCDM 2.0 document with a bbs-2023 derived proof): what goes, as is, into vp.verifiableCredential. */
export const DerivedCredential = Type.Record(Type.String(), Type.Unknown())
