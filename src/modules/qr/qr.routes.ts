import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorRefs } from '../shared/route-helpers.js'
import type { QrService } from './qr.service.js'

const QrResponse = Type.Object({
  success: Type.Boolean(),
  short_id: Type.String(),
  short_url: Type.String(),
  qr_code_data: Type.String(),
  qr_image: Type.String({ description: 'SVG data URL encoding short_url' }),
  expires_at: Type.Union([Type.String(), Type.Null()]),
})
const RecordId = Type.String({ minLength: 1, maxLength: 100 })

/** QR group: short ids, their public resolution, and codes for requests and offers the caller owns. */
export const qrRoutes: FastifyPluginAsyncTypebox<{ qr: QrService }> = async (app, { qr }) => {
  app.get('/resolve/:short_id', {
    schema: {
      tags: ['QR'], summary: 'The payload behind a short id (public)', security: [],
      params: Type.Object({ short_id: Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9A-Za-z]+$' }) }),
      response: { 200: Type.Object({ success: Type.Boolean(), kind: Type.String(), payload: Type.Unknown(), expires_at: Type.Union([Type.String(), Type.Null()]) }), ...errorRefs(400, 404) },
    },
  }, async (request) => ({ success: true, ...(await qr.resolve(request.params.short_id)) }))

  app.post('/presentation-request', {
    schema: { tags: ['QR'], summary: 'A QR code for one of your presentation requests', body: Type.Object({ request_id: RecordId }, { additionalProperties: false }), response: { 201: QrResponse, ...errorRefs(400, 401, 404) } },
  }, async (request, reply) => reply.status(201).send({ success: true, ...(await qr.forPresentationRequest(request.auth!.did, request.body.request_id)) }))

  app.post('/credential-offer', {
    schema: { tags: ['QR'], summary: 'A QR code for one of your credential offers', body: Type.Object({ offer_id: RecordId }, { additionalProperties: false }), response: { 201: QrResponse, ...errorRefs(400, 401, 404) } },
  }, async (request, reply) => reply.status(201).send({ success: true, ...(await qr.forCredentialOffer(request.auth!.did, request.body.offer_id)) }))
}
