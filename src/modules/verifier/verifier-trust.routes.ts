import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs } from '../shared/route-helpers.js'
import type { VerifierTrustService } from './verifier-trust.service.js'

const tags = ['Verifier']
const Pem = Type.String({ minLength: 1, maxLength: 16_384, description: 'one X.509 certificate, PEM (RFC 7468)' })

const TrustBody = Type.Object(
  {
    sources: Type.Array(
      Type.Object(
        {
          type: Type.Literal('x509', {
            description: 'X.509 certificates: IACA roots of mdoc issuers elsewhere, or a pinned Document Signer',
          }),
          certificates: Type.Array(Pem, { minItems: 1, maxItems: 50 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10 },
    ),
  },
  { additionalProperties: false },
)

const TrustView = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  verifier_did: Type.String(),
  sources: Type.Array(
    Type.Object({
      type: Type.String(),
      certificates: Type.Array(Type.Object({ pem: Type.String(), subject: Type.String(), not_after: Type.String() })),
      state: Type.Object({
        loaded: Type.Boolean({ description: 'every certificate of the source is read and still valid' }),
        entries: Type.Integer({ description: 'how many certificates of it count now' }),
      }),
    }),
  ),
  updated_at: Type.Union([Type.String(), Type.Null()]),
})

/** Whom a verifier trusts besides the issuers hosted here (docs/trust.md). */
export const verifierTrustRoutes: FastifyPluginAsyncTypebox<{ trust: VerifierTrustService }> = async (
  app,
  { trust },
) => {
  app.get(
    '/:did/trust',
    {
      schema: {
        tags,
        summary: "The verifier's trust sources, with what was read of each",
        params: Type.Object({ did: Did }),
        response: { 200: TrustView, ...errorRefs(400, 401, 403, 404) },
      },
    },
    async (request) => ({ success: true, message: 'Trust sources', ...(await trust.get(request.auth!.did)) }),
  )

  app.put(
    '/:did/trust',
    {
      schema: {
        tags,
        summary:
          "Set the verifier's trust sources (replacing them): certificates it trusts besides the issuers hosted here",
        params: Type.Object({ did: Did }),
        body: TrustBody,
        response: { 200: TrustView, ...errorRefs(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      success: true,
      message: 'Trust sources set',
      ...(await trust.put(request.auth!.did, request.body.sources)),
    }),
  )
}
