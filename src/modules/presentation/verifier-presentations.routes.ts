import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, PageQuery, paginate } from '../shared/route-helpers.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import { presentationView } from './presentation-view.js'
import * as S from './presentation.schemas.js'
import type { checkStoredCredential } from './stored-credential-check.js'
import type { VerifierPresentationService } from './verifier-presentations.service.js'

const errors = errorRefs(400, 401, 403, 404, 409)
const tags = ['Verifier presentations']

/** Presentations as the verifier sees them: submit, read, list, verify, resend the callback. */
export const verifierPresentationRoutes: FastifyPluginAsyncTypebox<{
  presentations: VerifierPresentationService
  checkCid: (cid: string) => ReturnType<typeof checkStoredCredential>
  idempotency: IdempotencyService
}> = async (app, { presentations, checkCid, idempotency }) => {
  app.post(
    '/presentations',
    {
      schema: {
        tags,
        summary: 'Submit a VP-JWT directly (by its holder or its verifier); with request_id it answers that request',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (and queues no second callback); another body 422; while the first is in progress 409.',
        headers: IdempotencyHeaders,
        body: S.SubmitBody,
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
        (claim) => presentations.submit(did, request.body, claim),
        (id) => presentations.get(did, id),
      )
      return reply
        .status(201)
        .send({ success: true, message: 'Presentation submitted', presentation: presentationView(presentation) })
    },
  )

  app.get(
    '/presentations/:id',
    {
      schema: {
        tags,
        summary: 'One presentation, with the VP as submitted (its verifier or its holder)',
        params: S.IdParams,
        response: { 200: Type.Object({ success: Type.Boolean(), presentation: S.PresentationWithJwt }), ...errors },
      },
    },
    async (request) => {
      const row = await presentations.get(request.auth!.did, request.params.id)
      return { success: true, presentation: { ...presentationView(row), presentation_jwt: row.presentation_jwt } }
    },
  )

  app.post(
    '/presentations/:id/verify',
    {
      schema: {
        tags,
        summary:
          'Verify a presentation: signatures, holder binding, nonce, audience, expiry, status, requirements, predicates, consent',
        params: S.IdParams,
        body: S.VerifyBody,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            verification_result: S.VerificationResult,
            blockchain_verification: Type.Object({
              on_chain: Type.Boolean(),
              revoked: Type.Boolean(),
              verified: Type.Boolean(),
            }),
            status: Type.String(),
            auto_approved: Type.Boolean(),
            consent_valid: Type.Boolean(),
            presentation: S.Presentation,
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const result = await presentations.verify(request.auth!.did, request.params.id, request.body)
      return { ...result, presentation: presentationView(result.presentation) }
    },
  )

  app.post(
    '/presentations/:id/resend',
    {
      schema: {
        tags,
        summary: "Send the presentation's latest event to the request's callback_url again",
        params: S.IdParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), event_id: Type.String() }),
          ...errors,
        },
      },
    },
    async (request) => ({
      success: true,
      message: 'Callback queued',
      event_id: await presentations.resend(request.auth!.did, request.params.id),
    }),
  )

  app.get(
    '/:did/presentations',
    {
      schema: {
        tags,
        summary: "The verifier's presentations, paginated",
        params: Type.Object({ did: Did }),
        querystring: PageQuery,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            presentations: Type.Array(S.Presentation),
            count: Type.Integer(),
            next_cursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const page = await paginate(request.query, (p) => presentations.list(request.auth!.did, p), presentationView)
      return { success: true, presentations: page.data, count: page.count, next_cursor: page.next_cursor }
    },
  )

  app.get(
    '/verify/ipfs/:ipfs_hash',
    {
      schema: {
        tags,
        summary:
          'Public facts of the credential stored under this CID: issuer, type, status, hash (the material itself is sealed to the holder)',
        params: Type.Object({ ipfs_hash: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            ipfs_hash: Type.String(),
            stored: Type.Boolean(),
            kyber_encrypted: Type.Boolean(),
            valid: Type.Boolean(),
            credential: Type.Object({
              id: Type.String(),
              issuer_did: Type.String(),
              credential_type: Type.String(),
              status: Type.String(),
              expired: Type.Boolean(),
              credential_hash: Type.String(),
              on_chain: Type.Boolean(),
              created_at: Type.String(),
            }),
          }),
          ...errors,
        },
      },
    },
    async (request) => ({ success: true, ...(await checkCid(request.params.ipfs_hash)) }),
  )
}
