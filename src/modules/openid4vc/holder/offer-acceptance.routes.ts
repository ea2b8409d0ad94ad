import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../../auth/auth.schemas.js'
import { IdempotencyHeaders } from '../../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../../idempotency/idempotency.service.js'
import { keyedRequest } from '../../idempotency/keyed-request.js'
import { errorRefs } from '../../shared/route-helpers.js'
import { WalletCredential, walletCredentialView } from '../../wallet/wallet.schemas.js'
import type { AcceptanceOutcome, OfferAcceptanceService, PreparedAcceptance } from './offer-acceptance.service.js'

const tags = ['Wallet']
const SessionId = Type.String({
  pattern: '^wps-[0-9a-f-]{36}$',
  description: 'the session_id the prepare step answered',
})
const JsonObject = Type.Record(Type.String(), Type.Unknown())
/** A public JWK (RFC 7517) of a P-256 key: ES256 is the one algorithm every issuer of a HAIP format accepts. */
const DeviceKey = Type.Object(
  {
    kty: Type.Literal('EC'),
    crv: Type.Literal('P-256'),
    x: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
    y: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
    // A private key (RFC 7518 §6.2.2.1 `d`) is refused rather than silently dropped: it never belongs here.
    d: Type.Optional(Type.Never()),
  },
  {
    additionalProperties: false,
    description:
      "the public key (JWK) of a P-256 key the holder keeps: the credential is bound to it instead of the holder's DID, and the holder signs the proof with it. An mdoc is always bound to a P-256 device key (ISO/IEC 18013-5 §9.1.2.4)",
  },
)

export const offerAcceptanceRoutes: FastifyPluginAsyncTypebox<{
  acceptance: OfferAcceptanceService
  now: () => Date
  idempotency: IdempotencyService
}> = async (app, { acceptance, now, idempotency }) => {
  app.post(
    '/:did/offers/accept',
    {
      // It calls the issuer the offer names: the outgoing-call budget of the resolve routes.
      config: { rateLimit: 'resolve' },
      schema: {
        tags,
        summary:
          'Accept an OpenID4VCI credential offer from any issuer: the service runs the protocol and answers the key proof for the holder to sign',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (the same session, while it exists) without calling the issuer again; another body 422; while the first is in progress 409.',
        params: Type.Object({ did: Did }),
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            offer_uri: Type.String({
              minLength: 1,
              maxLength: 8192,
              description: 'openid-credential-offer://?credential_offer_uri=… or ?credential_offer=…',
            }),
            tx_code: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 64,
                description: 'the transaction code the issuer gave the holder apart from the offer',
              }),
            ),
            credential_issuer: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 2048,
                description:
                  'the issuer the holder saw in the preview (POST …/offers/preview): an offer that now names another is refused (409)',
              }),
            ),
            credential_configuration_id: Type.Optional(
              Type.String({ minLength: 1, maxLength: 200, description: 'one of the offer’s; default its first' }),
            ),
            device_key: Type.Optional(DeviceKey),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            session_id: Type.String(),
            credential_issuer: Type.String(),
            credential_configuration_id: Type.String(),
            format: Type.String(),
            proof: Type.Object({
              header: JsonObject,
              payload: JsonObject,
              signing_input: Type.String({
                description:
                  "sign these bytes with the holder's key (JWS, RFC 7515) and send the compact JWS as proof_jwt",
              }),
            }),
            expires_at: Type.String(),
          }),
          ...errorRefs(400, 401, 403, 404, 409, 422, 503),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body: prepared } = await idempotency.run<PreparedAcceptance>(
        keyedRequest(request),
        (claim) => acceptance.prepare(did, request.body, claim),
        (sessionId) => acceptance.replayPrepare(did, sessionId),
      )
      return reply.status(201).send({
        success: true,
        message: 'Offer read and access token obtained: sign the proof to receive the credential',
        ...prepared,
        expires_at: prepared.expires_at.toISOString(),
      })
    },
  )

  app.post(
    '/:did/offers/accept/:session_id',
    {
      config: { rateLimit: 'resolve' },
      schema: {
        tags,
        summary:
          'Complete an offer acceptance with the signed key proof (or ask again for a deferred credential); what the issuer sends is verified and kept in the wallet',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (the credentials kept) or 202 without calling the issuer again, whose nonce and access token are single use; another body 422; while the first is in progress 409.',
        params: Type.Object({ did: Did, session_id: SessionId }),
        headers: IdempotencyHeaders,
        body: Type.Object(
          { proof_jwt: Type.Optional(Type.String({ minLength: 1, maxLength: 16_384 })) },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            status: Type.Literal('issued'),
            credentials: Type.Array(WalletCredential),
          }),
          202: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            status: Type.Literal('pending'),
            interval: Type.Union([Type.Integer(), Type.Null()]),
          }),
          ...errorRefs(400, 401, 403, 404, 409, 422, 503),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body: outcome } = await idempotency.run<AcceptanceOutcome>(
        keyedRequest(request),
        (claim) => acceptance.complete(did, request.params.session_id, request.body, claim),
        (resourceId) => acceptance.replayComplete(did, resourceId),
      )
      if (outcome.status === 'pending') {
        return reply.status(202).send({
          success: true,
          message: 'The issuer deferred the credential: ask again with the same session_id later',
          status: 'pending',
          interval: outcome.interval ?? null,
        })
      }
      return reply.status(201).send({
        success: true,
        message: 'Credential received, verified and kept',
        status: 'issued',
        credentials: outcome.credentials.map((c) => walletCredentialView(c, now())),
      })
    },
  )
}
