import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../../auth/auth.schemas.js'
import { IdempotencyHeaders } from '../../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../../idempotency/idempotency.service.js'
import { keyedRequest } from '../../idempotency/keyed-request.js'
import { errorRefs } from '../../shared/route-helpers.js'
import type { AnswerOutcome, PresentationAnswerService } from './presentation-answer.service.js'

const tags = ['Wallet']
const SessionId = Type.String({
  pattern: '^wps-[0-9a-f-]{36}$',
  description: 'the session_id the prepare step answered',
})
const JsonObject = Type.Record(Type.String(), Type.Unknown())
const ClaimPath = Type.Array(Type.Union([Type.String(), Type.Integer(), Type.Null()]))
const NullableString = Type.Union([Type.String(), Type.Null()])
const VerifierIdentity = Type.Object(
  {
    client_id: Type.String(),
    prefix: Type.String({
      description: 'the client identifier prefix (OpenID4VP 1.0 §5.9.3): decentralized_identifier or redirect_uri',
    }),
    verified: Type.Boolean({
      description: 'true: the request object was signed by the key its client identifier names',
    }),
    verified_by: Type.String({ description: "how the verifier's identity was established, readable" }),
    name: Type.Union([Type.String(), Type.Null()], {
      description: "client_metadata.client_name: the verifier's own words, not verified",
    }),
    logo_uri: NullableString,
    domain: Type.Union([Type.String(), Type.Null()], {
      description: 'the host of the response_uri the answer would go to',
    }),
  },
  { description: 'Who asks and how far that is proven; nothing has been sent to the verifier yet' },
)

export const presentationAnswerRoutes: FastifyPluginAsyncTypebox<{
  answers: PresentationAnswerService
  idempotency: IdempotencyService
}> = async (app, { answers, idempotency }) => {
  app.post(
    '/:did/presentation-requests/answer',
    {
      // It fetches the verifier's request object: the outgoing-call budget of the resolve routes.
      config: { rateLimit: 'resolve' },
      schema: {
        tags,
        summary:
          'Answer an OpenID4VP request (openid4vp://) of any verifier from the wallet: the request is verified, DCQL picks the credentials, and each holder proof is prepared for the holder to sign',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (the same session, while it exists); another body 422; while the first is in progress 409.',
        params: Type.Object({ did: Did }),
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            authorization_request_uri: Type.String({ minLength: 1, maxLength: 16_384 }),
            choices: Type.Optional(
              Type.Record(
                Type.String({ pattern: '^(0|[1-9][0-9]{0,2})$' }),
                Type.Union([Type.Integer({ minimum: 0, maximum: 999 }), Type.Null()]),
                {
                  maxProperties: 100,
                  description:
                    "The holder's pick per DCQL credential set: its index → the option to answer, or null to leave an optional set out. " +
                    'A set not named: a required one is answered with the option that discloses least, an optional one is left out',
                },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            session_id: Type.String(),
            verifier: Type.String(),
            verifier_identity: VerifierIdentity,
            purpose: Type.Union([Type.String(), Type.Null()], {
              description: 'why the verifier asks, when the request says so',
            }),
            response_mode: Type.String(),
            presentations: Type.Array(
              Type.Object({
                query_id: Type.String(),
                credential_id: Type.String(),
                format: Type.String(),
                credential_type: Type.String(),
                issuer_did: Type.String(),
                claims: Type.Array(ClaimPath, {
                  description:
                    'the path of every claim the presentation lets the verifier read (a JWT-VC is sent whole)',
                }),
                disclosed: Type.Record(Type.String(), Type.Unknown(), {
                  description: 'those claims with their values, as the verifier reads them',
                }),
                to_sign: Type.Union(
                  [
                    Type.Object({ header: JsonObject, payload: JsonObject, signing_input: Type.String() }),
                    Type.Object({
                      cose: Type.Object({
                        alg: Type.Literal('ES256'),
                        to_be_signed: Type.String({
                          description: 'base64url of the COSE Sig_structure (RFC 9052 §4.4) the holder key signs',
                        }),
                        key: Type.Record(Type.String(), Type.Unknown(), {
                          description:
                            "the public JWK that must sign: the credential's device key (ISO/IEC 18013-5 §9.1.2.4)",
                        }),
                      }),
                    }),
                  ],
                  {
                    description:
                      'a JWS signing input (answer: the compact JWS), or bytes to sign for a COSE signature (answer: the raw signature, base64url)',
                  },
                ),
              }),
            ),
            credential_sets: Type.Optional(
              Type.Array(
                Type.Object({
                  index: Type.Integer(),
                  required: Type.Boolean(),
                  options: Type.Array(Type.Array(Type.String())),
                  satisfiable: Type.Array(Type.Integer(), { description: 'the options the wallet can answer' }),
                  chosen: Type.Union([Type.Integer(), Type.Null()], {
                    description: 'the option answered; null: an optional set left out',
                  }),
                }),
              ),
            ),
            expires_at: Type.String(),
          }),
          ...errorRefs(400, 401, 403, 404, 409, 422, 503),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body: prepared } = await idempotency.run(
        keyedRequest(request),
        (claim) => answers.prepare(did, request.body, claim),
        (sessionId) => answers.replayPrepare(did, sessionId),
      )
      return reply.status(201).send({
        success: true,
        message: 'Request verified: sign each presentation to send the answer, or decline it; nothing was sent',
        ...prepared,
        expires_at: prepared.expires_at.toISOString(),
      })
    },
  )

  app.post(
    '/:did/presentation-requests/answer/:session_id/decline',
    {
      config: { rateLimit: 'resolve' },
      schema: {
        tags,
        summary:
          "Decline a prepared OpenID4VP request: the verifier receives the error response access_denied (OpenID4VP 1.0 §8.5) and nothing of the holder's credentials",
        description:
          "Ends the session (a later answer or decline is a 409) and records presentation_declined in the holder's activity. verifier_status is null when the verifier could not be reached; the decline stands.",
        params: Type.Object({ did: Did, session_id: SessionId }),
        body: Type.Object(
          {
            reason: Type.Optional(
              Type.String({ maxLength: 500, description: 'sent to the verifier as error_description' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            verifier_status: Type.Union([Type.Integer(), Type.Null()]),
            redirect_uri: NullableString,
          }),
          ...errorRefs(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const outcome = await answers.decline(request.auth!.did, request.params.session_id, request.body ?? {})
      const told =
        outcome.verifier_status === null ? 'the verifier could not be reached' : 'the verifier was told (access_denied)'
      return { success: true, message: `Request declined: ${told}`, ...outcome }
    },
  )

  app.post(
    '/:did/presentation-requests/answer/:session_id',
    {
      config: { rateLimit: 'resolve' },
      schema: {
        tags,
        summary: "Send the answer with the holder's signatures (one per query_id); the verifier's verdict is answered",
        description:
          "Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 200 (the verifier's verdict) without sending the answer again; another body 422; while the first is in progress 409.",
        params: Type.Object({ did: Did, session_id: SessionId }),
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            signatures: Type.Record(Type.String({ maxLength: 200 }), Type.String({ minLength: 1, maxLength: 16_384 }), {
              maxProperties: 20,
              description:
                'query_id → the signed JWS (signing_input.signature), or for a `cose` to_sign the raw signature over to_be_signed, base64url',
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            accepted: Type.Boolean(),
            verifier_status: Type.Integer(),
            redirect_uri: Type.Union([Type.String(), Type.Null()]),
            verifier_error: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorRefs(400, 401, 403, 404, 409, 422, 503),
        },
      },
    },
    async (request) => {
      const did = request.auth!.did
      const { body: outcome } = await idempotency.run<AnswerOutcome>(
        keyedRequest(request),
        (claim) => answers.complete(did, request.params.session_id, request.body, claim),
        (_sessionId, sealed) => Promise.resolve(sealed as AnswerOutcome),
      )
      return {
        success: true,
        message: outcome.accepted ? 'The verifier accepted the presentation' : 'The verifier refused the presentation',
        ...outcome,
      }
    },
  )
}
