import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { FREE_FORM_KEYWORD } from '../../json-limits.js'
import { errorRefs } from '../shared/route-helpers.js'
import type { VcApiService } from './vc-api.service.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import { assertRouteDeclaresScope, bearerChallenge, checkScope, requiresScope } from './vc-api-scopes.js'

const tags = ['VC API']
/** A credential or presentation: any JSON object, held to the free-form limits (json-limits.ts). */
// Undeclared members elsewhere are dropped (removeAdditional), so no JSON escapes those limits.
const Document = Type.Record(Type.String(), Type.Unknown(), { [FREE_FORM_KEYWORD]: true })
const Pointers = Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 256 })
const VerifyResult = Type.Object({
  verified: Type.Boolean(),
  checks: Type.Array(Type.String()),
  warnings: Type.Array(Type.String()),
  errors: Type.Array(Type.Unknown()),
})
/** The entry and list types the VC API names a Bitstring Status List revocation bit by. */
const STATUS_TYPES = [
  'BitstringStatusListEntry',
  'BitstringStatusListCredential',
  'StatusList2021Entry',
  'StatusList2021Credential',
] as const
const InstanceParams = Type.Object({ issuer_id: Type.String({ minLength: 1, maxLength: 100 }) })

/**
 * The W3C VC API (docs/vc-api.md): issue, verify and status, for OAuth clients of issuer profiles
 * (the auth hook checks the bearer token of every route under /vc-api/). Each route names the
 * scope its token needs in `schema.security`; a route that names none stops the start.
 */
export const vcApiRoutes: FastifyPluginAsyncTypebox<{ vcApi: VcApiService; idempotency: IdempotencyService }> = async (
  app,
  { vcApi, idempotency },
) => {
  app.addHook('onRoute', assertRouteDeclaresScope)
  // After the app's auth hook (a parent's hooks run first), before the body is read.
  app.addHook('onRequest', checkScope)
  app.addHook('onError', bearerChallenge)

  app.post(
    '/issuers/:issuer_id/:format/credentials/issue',
    {
      schema: {
        tags,
        summary:
          "VC API Issue Credential: secure the given credential in this instance's format (201 with the verifiable credential)",
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md), scoped to the OAuth client: a retry with the same key and body answers the first 201.',
        security: requiresScope('issue'),
        headers: IdempotencyHeaders,
        params: Type.Composite([InstanceParams, Type.Object({ format: Type.String({ minLength: 1, maxLength: 50 }) })]),
        body: Type.Object(
          {
            credential: Document,
            options: Type.Optional(
              Type.Object(
                {
                  credentialStatus: Type.Optional(
                    Type.Object(
                      {
                        type: Type.Optional(Type.String({ maxLength: 100 })),
                        statusPurpose: Type.Optional(Type.String({ maxLength: 100 })),
                      },
                      { additionalProperties: false },
                    ),
                  ),
                  mandatoryPointers: Type.Optional(Pointers),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Unknown(), ...errorRefs(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const { issuer_id, format } = request.params
      const caller = request.vcApi!
      // Keys belong to the OAuth client the token was issued to, not to a DID session.
      const { body: issued } = await idempotency.run(
        keyedRequest(request, { caller: `vc-api-client:${caller.clientId}` }),
        (claim) => vcApi.issue(caller, issuer_id, format, request.body.credential, request.body.options ?? {}, claim),
        (id) => vcApi.replay(caller, id),
      )
      return reply.status(201).send(issued.verifiableCredential)
    },
  )

  app.post(
    '/credentials/verify',
    {
      schema: {
        tags,
        summary: 'VC API Verify Credential: 200 when every check passes, 400 with the problems otherwise',
        security: requiresScope('verify'),
        body: Type.Object(
          {
            verifiableCredential: Document,
            options: Type.Optional(
              Type.Object(
                { checks: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })) },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: VerifyResult, ...errorRefs(400, 401, 403) },
      },
    },
    async (request) => vcApi.verifyCredential(request.body.verifiableCredential),
  )

  app.post(
    '/presentations/verify',
    {
      schema: {
        tags,
        summary:
          'VC API Verify Presentation: a Data Integrity presentation bound to options.challenge and options.domain, and its credentials',
        security: requiresScope('verify'),
        body: Type.Object(
          {
            verifiablePresentation: Document,
            options: Type.Optional(
              Type.Object(
                {
                  challenge: Type.Optional(Type.String({ maxLength: 1000 })),
                  domain: Type.Optional(Type.String({ maxLength: 1000 })),
                  checks: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: VerifyResult, ...errorRefs(400, 401, 403) },
      },
    },
    async (request) =>
      vcApi.verifyPresentation(request.body.verifiablePresentation, {
        challenge: request.body.options?.challenge,
        domain: request.body.options?.domain,
      }),
  )

  app.post(
    '/issuers/:issuer_id/credentials/status',
    {
      schema: {
        tags,
        summary: 'VC API Update Status: revoke a credential this issuer issued here with a status entry, by its id',
        security: requiresScope('status'),
        params: InstanceParams,
        body: Type.Object(
          {
            credentialId: Type.String({ minLength: 1, maxLength: 2048 }),
            credentialStatus: Type.Array(
              Type.Object(
                {
                  type: Type.Union(STATUS_TYPES.map((t) => Type.Literal(t))),
                  // The VC API's forms of one revocation bit: a word, the bit as text, or a boolean.
                  status: Type.Union([
                    Type.Literal('revoked'),
                    Type.Literal('active'),
                    Type.Literal('1'),
                    Type.Literal('0'),
                    Type.Boolean(),
                  ]),
                },
                { additionalProperties: false },
              ),
              { minItems: 1, maxItems: 1 },
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ credentialId: Type.String(), status: Type.String() }),
          ...errorRefs(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const [entry] = request.body.credentialStatus
      return vcApi.updateStatus(
        request.vcApi!,
        request.params.issuer_id,
        request.body.credentialId,
        revokes(entry!.status),
      )
    },
  )
}

/** "revoked" (or the bit set: true, "1") revokes; "active" (false, "0") asks for none. */
function revokes(status: string | boolean): boolean {
  return status === true || status === 'revoked' || status === '1'
}
