import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { CredentialFormatId, IssueResponse } from './issuance.schemas.js'
import { CredentialRequest, requestView, RequestStatusQuery } from './requests.schemas.js'
import type { CredentialRequestService } from './requests.service.js'
import { errorRefs, PageQuery, pageResponse, paginate } from '../shared/route-helpers.js'
import { FreeFormObject } from '../shared/free-form-json.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'

const errors = errorRefs(400, 401, 403, 404, 409)
const RecordId = Type.String({ minLength: 1, maxLength: 100 })
const IssuerRequestParams = Type.Object({ issuer_did: Did, request_id: RecordId })

/**
 * Holder side: ask an issuer for a credential (by schema or offer) and follow the requests.
 * Issuer side, under /api/wallet/issuer/...: the step-up challenge, approval (issues the
 * credential) and rejection.
 */
export const credentialRequestRoutes: FastifyPluginAsyncTypebox<{
  requests: CredentialRequestService
  idempotency: IdempotencyService
}> = async (app, { requests, idempotency }) => {
  app.post(
    '/credential-request',
    {
      schema: {
        tags: ['Wallet'],
        summary: 'Request a credential from an issuer, by schema_id or offer_id',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (and spends no second use of the offer); another body 422; while the first is in progress 409.',
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            issuer_did: Did,
            schema_id: Type.Optional(RecordId),
            offer_id: Type.Optional(RecordId),
            credential_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            attributes: Type.Optional(FreeFormObject({ maxProperties: 100 })),
            message: Type.Optional(Type.String({ maxLength: 2000 })),
            format: Type.Optional(CredentialFormatId),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), request: CredentialRequest }),
          ...errors,
          ...errorRefs(422),
        },
      },
    },
    async (request, reply) => {
      const holderDid = request.auth!.did
      const { body: created } = await idempotency.run(
        keyedRequest(request),
        (claim) => requests.create(holderDid, request.body, claim),
        (requestId) => requests.getForHolder(holderDid, requestId),
      )
      return reply
        .status(201)
        .send({ success: true, message: 'Credential request sent', request: requestView(created) })
    },
  )

  app.get(
    '/:did/credential-requests',
    {
      schema: {
        tags: ['Wallet'],
        summary: "The holder's credential requests, paginated",
        params: Type.Object({ did: Did }),
        querystring: Type.Composite([PageQuery, Type.Object({ status: RequestStatusQuery })]),
        response: { 200: pageResponse(CredentialRequest), ...errors },
      },
    },
    async (request) =>
      paginate(
        request.query,
        (page) => requests.listForHolder(request.auth!.did, request.query.status, page),
        requestView,
      ),
  )

  app.get(
    '/issuer/:issuer_did/request/:request_id/challenge',
    {
      schema: {
        tags: ['Issuer'],
        summary: 'A step-up challenge the issuer signs to approve the request',
        params: IssuerRequestParams,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            request_id: Type.String(),
            challenge: Type.String(),
            expires_at: Type.String(),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { challenge, expiresAt } = await requests.approvalChallenge(
        request.auth!.did,
        request.params.issuer_did,
        request.params.request_id,
      )
      return { success: true, request_id: request.params.request_id, challenge, expires_at: expiresAt.toISOString() }
    },
  )

  app.post(
    '/issuer/:issuer_did/request/:request_id/approve',
    {
      schema: {
        tags: ['Issuer'],
        summary: 'Approve with the signed challenge: issues the credential to the requester',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 200.',
        params: IssuerRequestParams,
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            signature: Type.String({ minLength: 1, maxLength: 512 }),
            challenge: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 512,
                description: 'default: the last challenge fetched for this request',
              }),
            ),
            attributes: Type.Optional(FreeFormObject({ maxProperties: 100 })),
            expiration_date: Type.Optional(Type.String({ format: 'date-time' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Intersect([IssueResponse, Type.Object({ request_id: Type.String() })]),
          ...errors,
          ...errorRefs(422),
        },
      },
    },
    async (request) => {
      const { issuer_did, request_id } = request.params
      const { body: credential } = await idempotency.run(
        keyedRequest(request),
        (claim) => requests.approve(request.auth!.did, issuer_did, request_id, request.body, claim),
        (credentialId) => requests.replayApproval(request.auth!.did, credentialId),
      )
      return {
        success: true,
        message: 'Request approved and credential issued',
        request_id: request.params.request_id,
        credential,
      }
    },
  )

  app.post(
    '/issuer/:issuer_did/request/:request_id/reject',
    {
      schema: {
        tags: ['Issuer'],
        summary: 'Reject the request',
        params: IssuerRequestParams,
        body: Type.Optional(
          Type.Object({ reason: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false }),
        ),
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), request: CredentialRequest }),
          ...errors,
        },
      },
    },
    async (request) => {
      const rejected = await requests.reject(
        request.auth!.did,
        request.params.issuer_did,
        request.params.request_id,
        request.body?.reason,
      )
      return { success: true, message: 'Request rejected', request: requestView(rejected) }
    },
  )
}
