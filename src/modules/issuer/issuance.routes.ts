import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, PageQuery, paginate } from '../shared/route-helpers.js'
import { CredentialRecord, IssueBody, IssueResponse } from './issuance.schemas.js'
import type { IssuanceService } from './issuance.service.js'
import type { IssuedCredentialsService } from './issued-credentials.service.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'

const errors = errorRefs(400, 401, 403, 404, 409)
const tags = ['Issuer']
const DidParams = Type.Object({ did: Did })
const CredentialParams = Type.Object({ did: Did, credential_id: Type.String({ minLength: 1, maxLength: 100 }) })
const ListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('revoked')])),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'credential_type' })),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'holder (subject) DID' })),
    schema_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  }),
])

/** Issuance, the issuer's credential records, revocation and statistics. */
export const issuanceRoutes: FastifyPluginAsyncTypebox<{
  issuance: IssuanceService
  issued: IssuedCredentialsService
  idempotency: IdempotencyService
}> = async (app, { issuance, issued, idempotency }) => {
  app.post(
    '/:did/issue',
    {
      schema: {
        tags,
        summary: 'Issue a credential (JWT-VC + BBS), sealed to the holder and stored by CID',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201; another body 422; while the first is in progress 409.',
        params: DidParams,
        headers: IdempotencyHeaders,
        body: IssueBody,
        response: { 201: IssueResponse, ...errors, ...errorRefs(422) },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body: credential } = await idempotency.run(
        keyedRequest(request),
        (claim) =>
          issuance.issue(did, request.body, {
            sessionId: request.auth!.jti,
            ...(claim ? { guard: (trx, row) => claim(trx, row.id) } : {}),
          }),
        (credentialId) => issuance.replay(did, credentialId),
      )
      return reply.status(201).send({ success: true, message: 'Credential issued', credential })
    },
  )

  app.get(
    '/:did/credentials',
    {
      schema: {
        tags,
        summary: 'Credentials this issuer issued, paginated; filters: status, type, subject, schema_id',
        params: DidParams,
        querystring: ListQuery,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Array(CredentialRecord),
            count: Type.Integer(),
            next_cursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { status, type, subject, schema_id } = request.query
      const filter = { status, credential_type: type, subject_did: subject, schema_id }
      return paginate(
        request.query,
        (page) => issued.list(request.auth!.did, filter, page),
        (row) => row,
      )
    },
  )

  app.get(
    '/:did/credentials/:credential_id',
    {
      schema: {
        tags,
        summary: 'One issued credential',
        params: CredentialParams,
        response: { 200: Type.Object({ success: Type.Boolean(), credential: CredentialRecord }), ...errors },
      },
    },
    async (request) => ({
      success: true,
      credential: await issued.get(request.auth!.did, request.params.credential_id),
    }),
  )

  app.post(
    '/:did/credentials/:credential_id/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke (status list bit set in the same transaction); revoking again answers 200 unchanged',
        params: CredentialParams,
        body: Type.Optional(
          Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }),
        ),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            credential: Type.Object({
              id: Type.String(),
              issuer_did: Type.String(),
              owner_did: Type.Union([Type.String(), Type.Null()]),
              status: Type.String(),
              revocation_blockchain_tx: Type.Union([Type.String(), Type.Null()]),
              revoked_at: Type.Union([Type.String(), Type.Null()]),
            }),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { row, changed } = await issued.revoke(
        request.auth!.did,
        request.params.credential_id,
        request.body?.reason ?? null,
        request.auth!.jti,
      )
      return {
        success: true,
        message: changed ? 'Credential revoked' : 'Credential was already revoked',
        credential: {
          id: row.id,
          issuer_did: row.issuer_did,
          owner_did: row.owner_did,
          status: row.status,
          revocation_blockchain_tx: row.revocation_blockchain_tx,
          revoked_at: row.revoked_at && new Date(row.revoked_at).toISOString(),
        },
      }
    },
  )

  app.get(
    '/:did/statistics',
    {
      schema: {
        tags,
        summary: 'Issued, active, revoked, by type; requests and offers',
        params: DidParams,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            statistics: Type.Object({
              issued: Type.Integer(),
              active: Type.Integer(),
              revoked: Type.Integer(),
              by_type: Type.Record(Type.String(), Type.Integer()),
              requests_pending: Type.Integer(),
              requests_approved: Type.Integer(),
              requests_rejected: Type.Integer(),
              offers_active: Type.Integer(),
            }),
          }),
          ...errors,
        },
      },
    },
    async (request) => ({ success: true, statistics: await issued.statistics(request.auth!.did) }),
  )
}
