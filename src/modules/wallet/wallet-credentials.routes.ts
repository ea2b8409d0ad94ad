import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, PageQuery, paginate } from '../shared/route-helpers.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import type { WalletCredentialService } from './wallet-credentials.service.js'
import { Nullable, RecordId, WalletCredential, walletCredentialView } from './wallet.schemas.js'

const CredentialParams = Type.Object({ did: Did, credential_id: RecordId })

export const walletCredentialRoutes: FastifyPluginAsyncTypebox<{
  wallet: WalletCredentialService
  now: () => Date
  idempotency: IdempotencyService
}> = async (app, { wallet, now, idempotency }) => {
  const view = (row: Parameters<typeof walletCredentialView>[0]) => walletCredentialView(row, now())

  app.get(
    '/:did/credentials',
    {
      schema: {
        tags: ['Wallet'],
        summary: "The holder's credentials (issued to it and not removed, or imported), paginated",
        params: Type.Object({ did: Did }),
        querystring: Type.Composite([
          PageQuery,
          Type.Object({
            status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('revoked')])),
            type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          }),
        ]),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Array(WalletCredential),
            count: Type.Integer(),
            query_did: Type.String(),
            next_cursor: Nullable(Type.String()),
          }),
          ...errorRefs(400, 401, 403),
        },
      },
    },
    async (request) => {
      // The auth hook checked the path DID against the token after normalising it; the token's DID is that normal form.
      const did = request.auth!.did
      const page = await paginate(
        request.query,
        (p) => wallet.list(did, { status: request.query.status, credential_type: request.query.type }, p),
        view,
      )
      return { ...page, query_did: did }
    },
  )

  app.post(
    '/:did/credentials/import',
    {
      schema: {
        tags: ['Wallet'],
        summary:
          'Import a JWT-VC from anywhere: verified (issuer signature via its DID document, subject = you, lifetime, status) before it is kept',
        description:
          'A credential already in the wallet answers 409. Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 instead; another body 422; while the first is in progress 409.',
        params: Type.Object({ did: Did }),
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            credential_jwt: Type.String({
              minLength: 1,
              maxLength: 262_144,
              description:
                'the credential as issued: a compact JWT (jwt_vc_json, vc+jwt), an SD-JWT VC, or the JSON text of a VCDM credential with a Data Integrity proof (eddsa-rdfc-2022, eddsa-jcs-2022)',
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            credential: WalletCredential,
            restored: Type.Boolean(),
          }),
          ...errorRefs(400, 401, 403, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const holderDid = request.auth!.did
      const {
        body: { credential, restored },
      } = await idempotency.run(
        keyedRequest(request),
        (claim) => wallet.import(holderDid, request.body.credential_jwt.trim(), claim),
        (credentialId) => wallet.replayImport(holderDid, credentialId),
      )
      return reply.status(201).send({
        success: true,
        message: restored ? 'Credential restored to the wallet' : 'Credential verified and imported',
        credential: view(credential),
        restored,
      })
    },
  )

  app.post(
    '/:did/credentials/:credential_id/revoke',
    {
      schema: {
        tags: ['Wallet'],
        summary:
          "Holder-side revocation: withdraw the credential from your own use (its shares stop, presentations refuse it); the issuer's status is unchanged",
        params: CredentialParams,
        body: Type.Optional(
          Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }),
        ),
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), credential: WalletCredential }),
          ...errorRefs(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const credential = await wallet.withdraw(
        request.auth!.did,
        request.params.credential_id,
        request.body?.reason ?? null,
      )
      return { success: true, message: 'Credential withdrawn from the wallet', credential: view(credential) }
    },
  )

  app.delete(
    '/:did/credentials/:credential_id',
    {
      schema: {
        tags: ['Wallet'],
        summary:
          'Remove a credential from the wallet only (not a revocation: issuer record, status list and chain unchanged)',
        params: CredentialParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String() }),
          ...errorRefs(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      await wallet.remove(request.auth!.did, request.params.credential_id)
      return { success: true, message: 'Credential removed from the wallet' }
    },
  )
}
