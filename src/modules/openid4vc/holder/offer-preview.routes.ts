import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../../auth/auth.schemas.js'
import { errorRefs } from '../../shared/route-helpers.js'
import type { OfferPreviewService } from './offer-preview.service.js'

const tags = ['Wallet']
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])
const OfferUri = Type.String({
  minLength: 1,
  maxLength: 8192,
  description: 'openid-credential-offer://?credential_offer_uri=… or ?credential_offer=…',
})

export const offerPreviewRoutes: FastifyPluginAsyncTypebox<{ previews: OfferPreviewService }> = async (
  app,
  { previews },
) => {
  app.post(
    '/:did/offers/preview',
    {
      // It calls the issuer the offer names: the outgoing-call budget of the resolve routes.
      config: { rateLimit: 'resolve' },
      schema: {
        tags,
        summary:
          'Look at an OpenID4VCI credential offer before accepting it: the issuer, what it offers and the claims; nothing is redeemed',
        description:
          'Reads the offer and the issuer metadata (OID4VCI 1.0 §4.1, §12.2) without calling the token endpoint: the pre-authorized code and any transaction code stay unspent, so the offer can still be accepted (POST …/offers/accept) or declined (POST …/offers/decline).',
        params: Type.Object({ did: Did }),
        body: Type.Object({ offer_uri: OfferUri }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            credential_issuer: Type.String({ description: 'the issuer URL (OID4VCI 1.0 §12.2.1)' }),
            issuer: Type.Object({
              name: Nullable(Type.String()),
              logo_uri: Nullable(Type.String()),
              domain: Type.String({ description: 'the host of credential_issuer: what the https connection proved' }),
              did: Nullable(Type.String()),
            }),
            credential_configurations: Type.Array(
              Type.Object({
                id: Type.String(),
                format: Type.String(),
                credential_type: Type.String({ description: 'vct, doctype or the most specific W3C type' }),
                display_name: Nullable(Type.String()),
                claims: Type.Array(
                  Type.Object({
                    path: Type.Array(Type.Union([Type.String(), Type.Integer(), Type.Null()])),
                    display_name: Nullable(Type.String()),
                    mandatory: Type.Boolean(),
                  }),
                ),
              }),
            ),
            tx_code: Nullable(
              Type.Object({
                input_mode: Nullable(Type.String()),
                length: Nullable(Type.Integer()),
                description: Nullable(Type.String()),
              }),
            ),
            grant: Type.Union([Type.Literal('pre-authorized_code'), Type.Literal('authorization_code')]),
          }),
          ...errorRefs(400, 401, 403, 422, 503),
        },
      },
    },
    async (request) => {
      const preview = await previews.preview(request.body.offer_uri)
      return { success: true, message: 'Offer read: nothing was redeemed', ...preview }
    },
  )

  app.post(
    '/:did/offers/decline',
    {
      config: { rateLimit: 'resolve' },
      schema: {
        tags,
        summary:
          "Decline an OpenID4VCI credential offer: the refusal is recorded in the holder's activity (credential_offer_declined)",
        description:
          'OpenID4VCI has no message that tells the issuer; the offer is left unredeemed. An offer that cannot be read any more is declined all the same.',
        params: Type.Object({ did: Did }),
        body: Type.Object(
          { offer_uri: OfferUri, reason: Type.Optional(Type.String({ maxLength: 500 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            credential_issuer: Nullable(Type.String()),
          }),
          ...errorRefs(400, 401, 403),
        },
      },
    },
    async (request) => {
      const declined = await previews.decline(request.auth!.did, request.body)
      return { success: true, message: 'Offer declined and recorded', ...declined }
    },
  )
}
