import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorRefs } from '../shared/route-helpers.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
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
const errors = errorRefs(400, 401, 404, 409, 422)
// Each call stores a new short id, so a retry without a key leaves a second code behind.
const KEYED =
  'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (the same short id); another body 422; while the first is in progress 409.'

/** QR group: short ids, their public resolution, and codes for requests and offers the caller owns. */
export const qrRoutes: FastifyPluginAsyncTypebox<{ qr: QrService; idempotency: IdempotencyService }> = async (
  app,
  { qr, idempotency },
) => {
  app.get(
    '/resolve/:short_id',
    {
      schema: {
        tags: ['QR'],
        summary: 'The payload behind a short id (public)',
        security: [],
        params: Type.Object({ short_id: Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9A-Za-z]+$' }) }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            kind: Type.String(),
            payload: Type.Unknown(),
            expires_at: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorRefs(400, 404),
        },
      },
    },
    async (request) => ({ success: true, ...(await qr.resolve(request.params.short_id)) }),
  )

  app.post(
    '/presentation-request',
    {
      schema: {
        tags: ['QR'],
        summary: 'A QR code for one of your presentation requests',
        description: KEYED,
        headers: IdempotencyHeaders,
        body: Type.Object({ request_id: RecordId }, { additionalProperties: false }),
        response: { 201: QrResponse, ...errors },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body } = await idempotency.run(
        keyedRequest(request),
        (claim) => qr.forPresentationRequest(did, request.body.request_id, claim),
        (shortId) => qr.replay(did, shortId),
      )
      return reply.status(201).send({ success: true, ...body })
    },
  )

  app.post(
    '/credential-offer',
    {
      schema: {
        tags: ['QR'],
        summary: 'A QR code for one of your credential offers',
        description: KEYED,
        headers: IdempotencyHeaders,
        body: Type.Object({ offer_id: RecordId }, { additionalProperties: false }),
        response: { 201: QrResponse, ...errors },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body } = await idempotency.run(
        keyedRequest(request),
        (claim) => qr.forCredentialOffer(did, request.body.offer_id, claim),
        (shortId) => qr.replay(did, shortId),
      )
      return reply.status(201).send({ success: true, ...body })
    },
  )
}
