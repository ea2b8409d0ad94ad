import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, PageQuery, pageResponse, paginate } from '../shared/route-helpers.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import type { WalletShareService } from './wallet-shares.service.js'
import { Nullable, RecordId, Share, shareView } from './wallet.schemas.js'

const CreatedShare = Type.Composite([
  Share,
  Type.Object({ token: Type.String({ description: 'shown once: only its hash is kept' }), share_url: Type.String() }),
])

/**
 * Share links: the holder's routes under /:did (token required) and the public resolution
 * GET /shared/:token (in the route-access allow-list; the token is the credential).
 */
export const walletShareRoutes: FastifyPluginAsyncTypebox<{
  shares: WalletShareService
  now: () => Date
  idempotency: IdempotencyService
}> = async (app, { shares, now, idempotency }) => {
  app.post(
    '/:did/credentials/share',
    {
      schema: {
        tags: ['Wallet'],
        summary:
          'Make a time-limited link to one credential; whoever opens it gets the credential JWT until it expires, is used up or revoked',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201, the same link and token included; another body 422; while the first is in progress 409.',
        params: Type.Object({ did: Did }),
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            credential_id: RecordId,
            expires_in_seconds: Type.Optional(
              Type.Integer({ minimum: 60, description: 'default 86400, at most WALLET_SHARE_MAX_TTL_SECONDS' }),
            ),
            max_uses: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
            purpose: Type.Optional(Type.String({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), share: CreatedShare }),
          ...errorRefs(400, 401, 403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const holderDid = request.auth!.did
      const {
        body: { share, token, url },
      } = await idempotency.run(
        keyedRequest(request),
        (claim) => shares.create(holderDid, request.body, claim),
        (shareId, token) => shares.replay(holderDid, shareId, token),
      )
      return reply.status(201).send({
        success: true,
        message: 'Share link created',
        share: { ...shareView(share, now()), token, share_url: url },
      })
    },
  )

  app.get(
    '/:did/shares',
    {
      schema: {
        tags: ['Wallet'],
        summary: "The holder's share links (without their tokens), paginated",
        params: Type.Object({ did: Did }),
        querystring: Type.Composite([
          PageQuery,
          Type.Object({ credential_id: Type.Optional(RecordId), active: Type.Optional(Type.Boolean()) }),
        ]),
        response: { 200: pageResponse(Share), ...errorRefs(400, 401, 403) },
      },
    },
    async (request) =>
      paginate(
        request.query,
        (p) => shares.list(request.auth!.did, request.query, p),
        (row) => shareView(row, now()),
      ),
  )

  app.post(
    '/:did/shares/:share_id/revoke',
    {
      schema: {
        tags: ['Wallet'],
        summary: 'Revoke a share link: it stops working at once',
        params: Type.Object({ did: Did, share_id: RecordId }),
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), share: Share }),
          ...errorRefs(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const share = await shares.revoke(request.auth!.did, request.params.share_id)
      return { success: true, message: 'Share link revoked', share: shareView(share, now()) }
    },
  )

  // No automatic HEAD: opening the link takes a use, a HEAD probe must not.
  app.get(
    '/shared/:token',
    {
      exposeHeadRoute: false,
      schema: {
        tags: ['Wallet'],
        summary: 'Open a share link (public): the credential JWT, to verify like any JWT-VC',
        security: [],
        params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            credential_jwt: Type.String(),
            holder_did: Type.String(),
            credential: Type.Object({
              id: Type.String(),
              issuer_did: Type.String(),
              issuer_name: Type.String(),
              credential_type: Type.String(),
              credential_data: Type.Record(Type.String(), Type.Unknown()),
              status: Type.String(),
              expiration_date: Nullable(Type.String()),
            }),
            share: Type.Object({
              purpose: Type.String(),
              expires_at: Type.String(),
              uses: Type.Integer(),
              max_uses: Nullable(Type.Integer()),
            }),
          }),
          ...errorRefs(400, 404, 429),
        },
      },
      config: { rateLimit: 'resolve' },
    },
    async (request, reply) => {
      const { share, credential } = await shares.open(request.params.token)
      // A bearer link: no shared cache may keep the answer.
      reply.header('cache-control', 'no-store')
      return {
        success: true,
        credential_jwt: credential.jwt,
        holder_did: share.holder_did,
        credential: {
          id: credential.id,
          issuer_did: credential.issuer_did,
          issuer_name: credential.issuer_name,
          credential_type: credential.credential_type,
          credential_data: credential.credential_data,
          status: credential.status,
          expiration_date: credential.expiration_date && new Date(credential.expiration_date).toISOString(),
        },
        share: {
          purpose: share.purpose,
          expires_at: new Date(share.expires_at).toISOString(),
          uses: share.uses,
          max_uses: share.max_uses,
        },
      }
    },
  )
}
