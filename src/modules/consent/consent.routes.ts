import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, pageResponse, paginate } from '../shared/route-helpers.js'
import * as S from './consent.schemas.js'
import type { ConsentService } from './consent.service.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'

const errors = errorRefs(400, 401, 403, 404)
const tags = ['Wallet']

/**
 * Wallet consents (spec: POST /api/wallet/:did/consents and "Further routes"). The auth hook has
 * already matched `:did` to the token (403 otherwise), so the token's DID is the holder.
 */
export const consentRoutes: FastifyPluginAsyncTypebox<{
  consents: ConsentService
  idempotency: IdempotencyService
}> = async (app, { consents, idempotency }) => {
  app.post(
    '/:did/consents',
    {
      schema: {
        tags,
        summary: 'Grant a verifier a consent; expires_at with expiration_policy fixed_date only',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201; another body 422; while the first is in progress 409.',
        params: Type.Object({ did: Did }),
        headers: IdempotencyHeaders,
        body: S.GrantConsentBody,
        response: {
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), consent: S.Consent }),
          ...errors,
          ...errorRefs(409, 422),
        },
      },
    },
    async (request, reply) => {
      const holderDid = request.auth!.did
      const { body: consent } = await idempotency.run(
        keyedRequest(request),
        (claim) => consents.grant(holderDid, request.body, claim),
        (consentId) => consents.get(holderDid, consentId),
      )
      return reply.status(201).send({ success: true, message: 'Consent granted', consent })
    },
  )

  app.get(
    '/:did/consents',
    {
      schema: {
        tags,
        summary: "The holder's consents, paginated; filter by verifier_did or status (active, expired, revoked)",
        params: Type.Object({ did: Did }),
        querystring: S.ListConsentsQuery,
        response: { 200: pageResponse(S.Consent), ...errors },
      },
    },
    async (request) => {
      const { verifier_did, status } = request.query
      return paginate(
        request.query,
        (page) => consents.list(request.auth!.did, { verifier_did, status }, page),
        (row) => consents.view(row),
      )
    },
  )

  app.get(
    '/:did/consents/:consent_id',
    {
      schema: {
        tags,
        summary: "One of the holder's consents",
        params: S.ConsentParams,
        response: { 200: Type.Object({ success: Type.Boolean(), consent: S.Consent }), ...errors },
      },
    },
    async (request) => ({ success: true, consent: await consents.get(request.auth!.did, request.params.consent_id) }),
  )

  app.post(
    '/:did/consents/:consent_id/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke a consent; revoking again answers 200 with the consent unchanged',
        params: S.ConsentParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), consent: S.Consent }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { consent, changed } = await consents.revoke(request.auth!.did, request.params.consent_id)
      return { success: true, message: changed ? 'Consent revoked' : 'Consent was already revoked', consent }
    },
  )
}
