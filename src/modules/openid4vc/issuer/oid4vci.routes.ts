import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { errorRefs } from '../../shared/route-helpers.js'
import { issuerContext, requestLike, type ContextDeps } from './oid4vci-context.js'
import type { Oid4vciAuthorizeService } from './oid4vci-authorize.service.js'
import type { Oid4vciCredentialService } from './oid4vci-credential.service.js'
import type { DpopFreshness } from './oid4vci-dpop.js'
import { NotAcceptableError, ResourceUnauthorized } from './oid4vci-errors.js'
import type { Oid4vciOffers } from './oid4vci-offers.js'
import type { Oid4vciTokenService } from './oid4vci-token.service.js'
import type { Oid4vciParService } from './oid4vci-par.service.js'
import { BATCH_SIZE } from './oid4vci-metadata.js'
import { prefersJwt } from './signed-metadata.js'
import { acceptFormBodies, ignoreBodies } from '../../../plugins/form-body.js'
import { JwkSchema } from '../../shared/jwk-schema.js'

const tags = ['OpenID4VCI']
const WebId = Type.String({ pattern: '^[a-f0-9]{32}$' })
const IssuerParams = Type.Object({ web_id: WebId })
const Json = Type.Record(Type.String(), Type.Unknown())
const security: never[] = []
const Jwt = Type.String({ maxLength: 16_384 })

/** OID4VCI 1.0 §8.2 (members the service reads). */
const CredentialRequestBody = Type.Object(
  {
    credential_configuration_id: Type.Optional(Type.String({ maxLength: 200 })),
    credential_identifier: Type.Optional(Type.String({ maxLength: 200 })),
    proofs: Type.Optional(
      Type.Object(
        {
          jwt: Type.Optional(Type.Array(Jwt, { minItems: 1, maxItems: BATCH_SIZE })),
          // Appendix F.3: one key attestation naming the keys to bind.
          attestation: Type.Optional(Type.Array(Jwt, { minItems: 1, maxItems: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    proof: Type.Optional(
      Type.Object(
        { proof_type: Type.String({ maxLength: 50 }), jwt: Type.Optional(Jwt) },
        { additionalProperties: false },
      ),
    ),
    // §8.2, §10: the wallet's key for an encrypted response (alg in the jwk; a top-level alg is the draft's form).
    credential_response_encryption: Type.Optional(
      Type.Object(
        {
          jwk: JwkSchema,
          enc: Type.String({ maxLength: 50 }),
          alg: Type.Optional(Type.String({ maxLength: 50 })),
          zip: Type.Optional(Type.String({ maxLength: 50 })),
        },
        { additionalProperties: false },
      ),
    ),
    // Unrecognized members are dropped (removeAdditional).
  },
  { additionalProperties: false },
)
const DeferredRequestBody = Type.Object(
  { transaction_id: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
)
/** RFC 6749 §4.1.1 with PKCE (RFC 7636) and OID4VCI's issuer_state; checked in the service (OAuth errors). */
const AuthorizationParams = {
  response_type: Type.Optional(Type.String({ maxLength: 20 })),
  client_id: Type.Optional(Type.String({ maxLength: 200 })),
  redirect_uri: Type.Optional(Type.String({ maxLength: 2000 })),
  code_challenge: Type.Optional(Type.String({ maxLength: 128 })),
  code_challenge_method: Type.Optional(Type.String({ maxLength: 10 })),
  issuer_state: Type.Optional(Type.String({ maxLength: 200 })),
  scope: Type.Optional(Type.String({ maxLength: 1000 })),
  state: Type.Optional(Type.String({ maxLength: 500 })),
  resource: Type.Optional(Type.String({ maxLength: 2000 })),
  request_uri: Type.Optional(Type.String({ maxLength: 200 })),
}
const DidText = Type.String({ minLength: 1, maxLength: 4096 })
const { issuer_state: _issuerState, ...withoutIssuerState } = AuthorizationParams

/** §11.1; checked in the service so a missing member is invalid_notification_request. */
const NotificationBody = Type.Object(
  {
    notification_id: Type.Optional(Type.String({ maxLength: 200 })),
    event: Type.Optional(Type.String({ maxLength: 50 })),
    event_description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
)

export interface Oid4vciRouteDeps {
  context: ContextDeps
  offers: Oid4vciOffers
  tokens: Oid4vciTokenService
  credentials: Oid4vciCredentialService
  authorization: Oid4vciAuthorizeService
  par: Oid4vciParService
  dpop: DpopFreshness
}

/**
 * OpenID for Verifiable Credential Issuance 1.0 (docs/openid4vci.md): each issuer profile is a
 * credential issuer `<base>/issuers/<web_id>` and its own authorization server. Public routes:
 * the access token (and its DPoP proof) is the authorization of the protected ones.
 */
export const oid4vciRoutes: FastifyPluginAsyncTypebox<Oid4vciRouteDeps> = async (app, deps) => {
  const publicBaseUrl = deps.context.publicBaseUrl
  const like = (request: FastifyRequest) => requestLike(publicBaseUrl, request)
  // RFC 6750 §3, RFC 9449 §7.1: a refused access token or DPoP proof names the scheme and the error.
  app.addHook('onError', async (_request, reply, error) => {
    if (error instanceof ResourceUnauthorized) reply.header('www-authenticate', error.wwwAuthenticate)
  })
  // RFC 9449 §8.2, §9: every answer of an endpoint that reads DPoP proofs carries the next server
  // nonce, a use_dpop_nonce refusal included; so does the nonce endpoint's (HAIP 1.0 expects it).
  const dpopNonce = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const webId = (request.params as { web_id?: string }).web_id
    if (webId && reply.statusCode !== 404) reply.header('dpop-nonce', deps.dpop.nonce(webId))
    return payload
  }

  // OID4VCI 1.0 §12.2.2 and RFC 8414 §3.1 insert the well-known segment before the issuer's path;
  // clients written to earlier drafts (Sphereon's 0.20) append it: both are served.
  for (const url of [
    '/.well-known/openid-credential-issuer/issuers/:web_id',
    '/issuers/:web_id/.well-known/openid-credential-issuer',
  ]) {
    app.get(
      url,
      {
        schema: {
          tags,
          summary: 'Credential Issuer Metadata (OID4VCI 1.0 §12.2)',
          description: 'With `Accept: application/jwt`, the signed metadata JWT itself (§12.2.3).',
          security,
          params: IssuerParams,
          response: {
            200: {
              content: {
                'application/json': { schema: Json },
                'application/jwt': { schema: Type.String() },
              },
            },
            ...errorRefs(400, 404),
          },
        },
      },
      async (request, reply) => {
        const ctx = await issuerContext(deps.context, request.params.web_id)
        reply.header('cache-control', 'public, max-age=60').header('vary', 'accept')
        const signed = (ctx.metadata as { signed_metadata?: string }).signed_metadata
        if (signed && prefersJwt(request.headers.accept)) return reply.type('application/jwt').send(signed)
        return reply.send(ctx.metadata)
      },
    )
  }

  for (const url of [
    '/.well-known/oauth-authorization-server/issuers/:web_id',
    '/issuers/:web_id/.well-known/oauth-authorization-server',
  ]) {
    app.get(
      url,
      {
        schema: {
          tags,
          summary: 'Authorization Server Metadata of the credential issuer (RFC 8414)',
          security,
          params: IssuerParams,
          response: { 200: Json, ...errorRefs(400, 404) },
        },
      },
      async (request, reply) => {
        const ctx = await issuerContext(deps.context, request.params.web_id)
        return reply.header('cache-control', 'public, max-age=60').send(ctx.authorizationServer)
      },
    )
  }

  app.get(
    '/issuers/:web_id/oid4vci/jwks',
    {
      schema: {
        tags,
        summary: 'The keys that sign its access tokens (RFC 7517 JWK Set)',
        security,
        params: IssuerParams,
        response: { 200: Json, ...errorRefs(400, 404) },
      },
    },
    async (request, reply) => {
      const ctx = await issuerContext(deps.context, request.params.web_id)
      return reply.type('application/jwk-set+json').header('cache-control', 'public, max-age=60').send(ctx.jwks)
    },
  )

  app.get(
    '/issuers/:web_id/oid4vci/offers/:handle',
    {
      schema: {
        tags,
        summary: 'A credential offer object, by reference (OID4VCI 1.0 §4.1.3)',
        security,
        params: Type.Object({ web_id: WebId, handle: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }) }),
        response: { 200: Json, ...errorRefs(400, 404) },
      },
    },
    async (request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .send(await deps.offers.offerObject(request.params.web_id, request.params.handle)),
  )

  app.get(
    '/issuers/:web_id/oid4vci/authorize',
    {
      schema: {
        tags,
        summary:
          'Authorization endpoint, step 1 (Accept: application/json): the request checked and a challenge for the holder DID to sign',
        security,
        params: IssuerParams,
        // issuer_state is the offer's bearer secret: undeclared, so the request log redacts it
        // (log-options.ts logs declared query parameters only); RFC 6749 §3.1 ignores unknown ones.
        querystring: Type.Object(
          { ...withoutIssuerState, did: Type.Optional(DidText) },
          { additionalProperties: Type.String({ maxLength: 2000 }) },
        ),
        response: { 200: Json, ...errorRefs(400, 404) },
      },
    },
    async (request, reply) => {
      if (!request.headers.accept?.includes('application/json')) throw new NotAcceptableError()
      const query = request.query as typeof request.query & { issuer_state?: string }
      return reply
        .header('cache-control', 'no-store')
        .send(await deps.authorization.challenge(request.params.web_id, query))
    },
  )

  app.post(
    '/issuers/:web_id/oid4vci/authorize',
    {
      config: { rateLimit: 'auth' },
      schema: {
        tags,
        summary:
          'Authorization endpoint, step 2: the signed challenge for a single-use code and the redirect URI carrying it',
        security,
        params: IssuerParams,
        body: Type.Object(
          {
            ...AuthorizationParams,
            did: DidText,
            challenge: Type.String({ minLength: 1, maxLength: 1024 }),
            signature: Type.String({ minLength: 1, maxLength: 1024 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Json, ...errorRefs(400, 401, 404) },
      },
    },
    async (request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .send(await deps.authorization.authorize(request.params.web_id, request.body)),
  )

  // RFC 6749 §4.1.3: the token request is form-encoded; only the token route reads form bodies.
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>()
    acceptFormBodies(plain)
    scope.post(
      '/issuers/:web_id/oid4vci/token',
      {
        // A tx_code is short: guesses are limited like sign-ins (per client IP).
        config: { rateLimit: 'auth' },
        onSend: dpopNonce,
        schema: {
          tags,
          summary:
            'Token endpoint: a pre-authorized code (and tx_code) or an authorization code (and PKCE verifier) for an access token, DPoP-bound when a proof is sent (RFC 6749, RFC 9449)',
          security,
          params: IssuerParams,
          body: Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 4096 }), { maxProperties: 30 }),
          response: { 200: Json, ...errorRefs(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const answer = await deps.tokens.token(request.params.web_id, request.body, like(request))
        return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer)
      },
    )
    scope.post(
      '/issuers/:web_id/oid4vci/par',
      {
        config: { rateLimit: 'auth' },
        schema: {
          tags,
          summary:
            'Pushed authorization request endpoint (RFC 9126): the authorization request, with the wallet attestation headers, for a short-lived single-use request_uri',
          security,
          params: IssuerParams,
          body: Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 4096 }), { maxProperties: 30 }),
          response: { 201: Json, ...errorRefs(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const answer = await deps.par.push(request.params.web_id, request.body, like(request))
        return reply.status(201).header('cache-control', 'no-store').send(answer)
      },
    )
  })

  // OID4VCI 1.0 §7.1: the nonce request is a bare POST; whatever content type and body it has are ignored.
  await app.register(async (plain) => {
    ignoreBodies(plain)
    plain.withTypeProvider<TypeBoxTypeProvider>().post(
      '/issuers/:web_id/oid4vci/nonce',
      {
        onSend: dpopNonce,
        schema: {
          tags,
          summary: 'A fresh single-use c_nonce for key proofs (OID4VCI 1.0 §7)',
          security,
          params: IssuerParams,
          response: { 200: Json, ...errorRefs(400, 404) },
        },
      },
      async (request, reply) =>
        reply.header('cache-control', 'no-store').send(await deps.credentials.nonce(request.params.web_id)),
    )
  })

  app.post(
    '/issuers/:web_id/oid4vci/credential',
    {
      onSend: dpopNonce,
      schema: {
        tags,
        summary:
          'Credential endpoint: one key-bound credential per jwt proof, or a deferred transaction (OID4VCI 1.0 §8)',
        security,
        params: IssuerParams,
        body: CredentialRequestBody,
        response: {
          200: Type.Union([
            Json,
            Type.String({ description: 'An encrypted response: a compact JWE (application/jwt)' }),
          ]),
          202: Type.Union([Json, Type.String()]),
          ...errorRefs(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const answer = await deps.credentials.credential(request.params.web_id, request.body, like(request))
      reply.status(answer.status).header('cache-control', 'no-store')
      // OID4VCI 1.0 §8.3: an encrypted credential response is a JWE of media type application/jwt.
      return 'jwe' in answer ? reply.type('application/jwt').send(answer.jwe) : reply.send(answer.body)
    },
  )

  app.post(
    '/issuers/:web_id/oid4vci/deferred-credential',
    {
      onSend: dpopNonce,
      schema: {
        tags,
        summary: 'Deferred credential endpoint: the credential once the issuer approved (OID4VCI 1.0 §9)',
        security,
        params: IssuerParams,
        body: DeferredRequestBody,
        response: { 200: Json, 202: Json, ...errorRefs(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const answer = await deps.credentials.deferred(request.params.web_id, request.body, like(request))
      return reply.status(answer.status).header('cache-control', 'no-store').send(answer.body)
    },
  )

  app.post(
    '/issuers/:web_id/oid4vci/notification',
    {
      onSend: dpopNonce,
      schema: {
        tags,
        summary:
          'Notification endpoint: the wallet reports it accepted, failed or deleted what it received (OID4VCI 1.0 §11)',
        security,
        params: IssuerParams,
        body: NotificationBody,
        response: { ...errorRefs(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deps.credentials.notification(request.params.web_id, request.body, like(request))
      return reply.status(204).send()
    },
  )
}
