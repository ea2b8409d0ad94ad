import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import { Did } from '../../auth/auth.schemas.js'
import { errorRefs } from '../../shared/route-helpers.js'
import type { Oid4vciPolicyService } from './oid4vci-policy.service.js'
import { JwkSchema } from '../../shared/jwk-schema.js'

const tags = ['OpenID4VCI']
const DidParams = Type.Object({ did: Did })
const providerOf = (jwk: typeof JwkSchema | ReturnType<typeof Type.Record>) =>
  Type.Union([
    Type.Object({ jwk }, { additionalProperties: false }),
    Type.Object({ certificate_pem: Type.String({ minLength: 1, maxLength: 16_384 }) }, { additionalProperties: false }),
  ])
const TrustedWalletProvider = providerOf(JwkSchema)

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

// The answer shows each provider's key as it was stored.
const PolicyAnswer = Type.Object({
  success: Type.Boolean(),
  policy: Type.Object({
    ...PolicyBody.properties,
    trusted_wallet_providers: Type.Array(providerOf(Type.Record(Type.String(), Type.Unknown()))),
  }),
})

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
      // A JWK's optional members are absent, not undefined: the stored record type.
      policy: await policies.set(
        request.auth!.did,
        request.auth!.jti,
        request.body as Parameters<typeof policies.set>[2],
      ),
    }),
  )
}
