import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import { Did } from '../../auth/auth.schemas.js'
import { errorRefs } from '../../shared/route-helpers.js'
import type { Oid4vciPolicyService } from './oid4vci-policy.service.js'
import { FreeFormObject } from '../../shared/free-form-json.js'

const tags = ['OpenID4VCI']
const DidParams = Type.Object({ did: Did })
// A public JWK (RFC 7517): any members, held to the free-form JSON limits.
const Jwk = FreeFormObject({ maxProperties: 20 })
const TrustedWalletProvider = Type.Union([
  Type.Object({ jwk: Jwk }, { additionalProperties: false }),
  Type.Object({ certificate_pem: Type.String({ minLength: 1, maxLength: 16_384 }) }, { additionalProperties: false }),
])

export const PolicyBody = Type.Object(
  {
    par_required: Type.Boolean(),
    dpop_required: Type.Boolean(),
    dpop_nonce_required: Type.Boolean(),
    wallet_attestation_required: Type.Boolean(),
    key_attestation_required: Type.Boolean(),
    trusted_wallet_providers: Type.Array(TrustedWalletProvider, { maxItems: 20 }),
    credential_response_encryption: Type.Union([
      Type.Literal('none'),
      Type.Literal('optional'),
      Type.Literal('required'),
    ]),
  },
  { additionalProperties: false },
)
export type PolicyBody = Static<typeof PolicyBody>

const PolicyAnswer = Type.Object({ success: Type.Boolean(), policy: PolicyBody })

/** The OpenID4VCI policy of the caller's issuer profile (docs/openid4vci.md "Issuer policy"). */
export const oid4vciPolicyRoutes: FastifyPluginAsyncTypebox<{ policies: Oid4vciPolicyService }> = async (
  app,
  { policies },
) => {
  app.get(
    '/:did/oid4vci-policy',
    {
      schema: {
        tags,
        summary: "The issuer's OpenID4VCI policy (the defaults until set)",
        params: DidParams,
        response: { 200: PolicyAnswer, ...errorRefs(400, 401, 403, 404) },
      },
    },
    async (request) => ({ success: true, policy: await policies.get(request.auth!.did) }),
  )

  app.put(
    '/:did/oid4vci-policy',
    {
      schema: {
        tags,
        summary:
          'Set what its credential issuer requires of wallets: PAR, DPoP and its nonces, wallet and key attestations from trusted wallet providers, encrypted credential responses. Needs step-up when required',
        params: DidParams,
        body: PolicyBody,
        response: { 200: PolicyAnswer, ...errorRefs(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      success: true,
      policy: await policies.set(request.auth!.did, request.auth!.jti, request.body),
    }),
  )
}
