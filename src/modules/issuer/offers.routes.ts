import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, PageQuery, pageResponse, paginate } from '../shared/route-helpers.js'
import type { OfferRow } from './offers.repository.js'
import type { OfferService } from './offers.service.js'
import { FreeFormObject } from '../shared/free-form-json.js'
import { CredentialFormatId } from './issuance.schemas.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'

const errors = errorRefs(400, 401, 403, 404, 409)
const tags = ['Issuer']
const DidParams = Type.Object({ did: Did })

const OfferBody = Type.Object(
  {
    credential_type: Type.String({ minLength: 1, maxLength: 100 }),
    schema_id: Type.String({ minLength: 1, maxLength: 100 }),
    template_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    attributes: Type.Optional(FreeFormObject({ maxProperties: 100 })),
    subject_did: Type.Optional(Did),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    max_uses: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
    format: Type.Optional(CredentialFormatId),
    // OpenID4VCI (docs/openid4vci.md "Offers").
    tx_code: Type.Optional(
      Type.Union(
        [
          Type.Boolean(),
          Type.Object(
            {
              length: Type.Optional(Type.Integer({ minimum: 4, maximum: 12 })),
              input_mode: Type.Optional(Type.Union([Type.Literal('numeric'), Type.Literal('text')])),
              description: Type.Optional(Type.String({ maxLength: 300 })),
            },
            { additionalProperties: false },
          ),
        ],
        {
          description:
            'OpenID4VCI: a transaction code the wallet must send with the pre-authorized code (shown once in the answer)',
        },
      ),
    ),
    requires_approval: Type.Optional(
      Type.Boolean({
        description: 'OpenID4VCI: deferred issuance; the issuer approves the credential request the wallet makes',
      }),
    ),
    dpop_required: Type.Optional(
      Type.Boolean({ description: 'OpenID4VCI: the access token must be DPoP-bound (RFC 9449)' }),
    ),
    pre_authorized: Type.Optional(
      Type.Boolean({
        description:
          'OpenID4VCI: false offers the authorization code grant (the holder signs in with its DID) instead of a pre-authorized code; default true',
      }),
    ),
  },
  { additionalProperties: false },
)

const Offer = Type.Object({
  id: Type.String(),
  issuer_did: Type.String(),
  credential_type: Type.String(),
  schema_id: Type.String(),
  template_id: Type.Union([Type.String(), Type.Null()]),
  attributes: Type.Record(Type.String(), Type.Unknown()),
  subject_did: Type.Union([Type.String(), Type.Null()]),
  description: Type.String(),
  max_uses: Type.Union([Type.Integer(), Type.Null()]),
  uses: Type.Integer(),
  status: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  format: Type.Union([Type.String(), Type.Null()], {
    description: 'The format the credential is issued in (docs/formats.md); null: jwt_vc_json',
  }),
  created_at: Type.String(),
  updated_at: Type.String(),
})

const offerView = (o: OfferRow) => ({
  ...o,
  expires_at: o.expires_at && new Date(o.expires_at).toISOString(),
  created_at: new Date(o.created_at).toISOString(),
  updated_at: new Date(o.updated_at).toISOString(),
})

export const offerRoutes: FastifyPluginAsyncTypebox<{ offers: OfferService; idempotency: IdempotencyService }> = async (
  app,
  { offers, idempotency },
) => {
  app.post(
    '/:did/offers',
    {
      schema: {
        tags,
        summary: 'Create a credential offer (with its QR payload)',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201, its tx_code and offer URI included.',
        params: DidParams,
        headers: IdempotencyHeaders,
        body: OfferBody,
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            offer: Offer,
            qr_code_data: Type.String(),
            credential_offer_uri: Type.Optional(
              Type.String({ description: 'OpenID4VCI: openid-credential-offer://?credential_offer_uri=...' }),
            ),
            credential_offer_qr: Type.Optional(
              Type.String({ description: 'OpenID4VCI: the credential offer URI as a QR code (SVG data URL)' }),
            ),
            credential_offer: Type.Optional(
              Type.Record(Type.String(), Type.Unknown(), {
                description: 'OpenID4VCI: the credential offer object served at credential_offer_uri',
              }),
            ),
            credential_configuration_id: Type.Optional(Type.String()),
            tx_code: Type.Optional(
              Type.String({
                description: 'OpenID4VCI: the transaction code to give the holder out of band; shown only here',
              }),
            ),
          }),
          ...errors,
          ...errorRefs(422),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const {
        body: { offer, published },
      } = await idempotency.run(
        keyedRequest(request),
        (claim) => offers.create(did, request.body, claim),
        (offerId, secret) => offers.replay(did, offerId, secret),
      )
      return reply.status(201).send({
        success: true,
        message: 'Offer created',
        offer: offerView(offer),
        qr_code_data: offers.qrPayload(offer),
        ...published,
      })
    },
  )

  app.get(
    '/:did/offers',
    {
      schema: {
        tags,
        summary: "The issuer's offers, paginated",
        params: DidParams,
        querystring: PageQuery,
        response: { 200: pageResponse(Offer), ...errors },
      },
    },
    async (request) => paginate(request.query, (page) => offers.list(request.auth!.did, page), offerView),
  )

  app.get(
    '/:did/offers/:offer_id/qr',
    {
      schema: {
        tags,
        summary: 'The offer QR: payload and an SVG image (data URL)',
        params: Type.Object({ did: Did, offer_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            offer_id: Type.String(),
            qr_code_data: Type.String(),
            qr_image: Type.String(),
          }),
          ...errors,
        },
      },
    },
    async (request) => ({ success: true, ...(await offers.qr(request.auth!.did, request.params.offer_id)) }),
  )
}
