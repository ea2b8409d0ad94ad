import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, PageQuery, pageResponse, paginate } from '../shared/route-helpers.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import type { PresentationRequestRow } from '../verifier/verifier.types.js'
import type { VerifierService } from '../verifier/verifier.service.js'
import type { HolderPresentationService } from './holder-presentations.service.js'
import { presentationView } from './presentation-view.js'
import * as S from './presentation.schemas.js'

const errors = errorRefs(400, 401, 403, 404, 409)
const tags = ['Wallet presentations']
/** The request as the holder reads it: the verifier's profile name beside its DID. */
const HolderRequest = Type.Object({
  ...S.PresentationRequest.properties,
  verifier_name: Type.Union([Type.String(), Type.Null()], {
    description: "the verifier profile's name, if it made one (self-declared)",
  }),
})

/** The holder's presentation-request inbox and answers (DESIGN.md "Presentation", holder flow). */
export const walletPresentationRoutes: FastifyPluginAsyncTypebox<{
  holder: HolderPresentationService
  verifiers: VerifierService
  idempotency: IdempotencyService
}> = async (app, { holder, verifiers, idempotency }) => {
  const requestView = (r: PresentationRequestRow) => ({
    ...r,
    status: verifiers.effectiveStatus(r),
    created_at: new Date(r.created_at).toISOString(),
    expires_at: new Date(r.expires_at).toISOString(),
  })

  app.post(
    '/presentation-requests',
    {
      schema: {
        tags,
        summary: "Take a presentation request into the holder's inbox (201; 200 when already there)",
        body: S.TakeRequestBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), request: HolderRequest }),
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), request: HolderRequest }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { request: taken, created } = await holder.take(request.auth!.did, request.body)
      const view = { ...requestView(taken), verifier_name: await verifiers.verifierName(taken.verifier_did) }
      return reply.status(created ? 201 : 200).send({
        success: true,
        message: created ? 'Presentation request added to your inbox' : 'Already in your inbox',
        request: view,
      })
    },
  )

  app.get(
    '/presentation-requests/:request_id/status',
    {
      schema: {
        tags,
        summary: "The holder's answer to a request and the request's state",
        params: S.RequestIdParams,
        response: { 200: Type.Object({ success: Type.Boolean(), ...S.InboxEntry.properties }), ...errors },
      },
    },
    async (request) => {
      const { entry, request: req, presentation } = await holder.status(request.auth!.did, request.params.request_id)
      return {
        success: true,
        request_id: entry.request_id,
        status: entry.status,
        request_status: verifiers.effectiveStatus(req),
        reason: entry.reason,
        presentation_id: entry.presentation_id,
        presentation_status: presentation?.status ?? null,
        updated_at: new Date(entry.updated_at).toISOString(),
      }
    },
  )

  app.post(
    '/presentation-requests/:request_id/approve',
    {
      schema: {
        tags,
        summary: 'Answer a request with a VP-JWT the holder signed (iss holder, aud verifier, the request nonce)',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (and queues no second callback); another body 422; while the first is in progress 409.',
        params: S.RequestIdParams,
        headers: IdempotencyHeaders,
        body: S.ApproveBody,
        response: {
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), presentation: S.Presentation }),
          ...errors,
          ...errorRefs(422),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body: presentation } = await idempotency.run(
        keyedRequest(request),
        (claim) => holder.approve(did, request.params.request_id, request.body, claim),
        (presentationId) => holder.presentation(did, presentationId),
      )
      return reply.status(201).send({
        success: true,
        message: 'Presentation submitted to the verifier',
        presentation: presentationView(presentation),
      })
    },
  )

  app.post(
    '/presentation-requests/:request_id/reject',
    {
      schema: {
        tags,
        summary: 'Decline a request',
        params: S.RequestIdParams,
        body: S.RejectBody,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            request_id: Type.String(),
            status: Type.String(),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const entry = await holder.reject(request.auth!.did, request.params.request_id, request.body?.reason)
      return {
        success: true,
        message: 'Presentation request rejected',
        request_id: entry.request_id,
        status: entry.status,
      }
    },
  )

  app.get(
    '/:did/presentations',
    {
      schema: {
        tags,
        summary: "The holder's presentations, paginated",
        params: Type.Object({ did: Did }),
        querystring: PageQuery,
        response: { 200: pageResponse(S.Presentation), ...errors },
      },
    },
    async (request) => paginate(request.query, (page) => holder.list(request.auth!.did, page), presentationView),
  )
}
