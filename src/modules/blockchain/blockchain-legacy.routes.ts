import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import { Did } from '../auth/auth.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import { errorRefs } from '../shared/route-helpers.js'
import { keyedWrite, keyedWriteErrors } from './blockchain.routes.js'
import type { BlockchainService } from './blockchain.service.js'
import * as S from './blockchain.schemas.js'

/**
 * Spec group "Blockchain legacy" (/api/blockchain-legacy): the older route names and camelCase
 * bodies, mapped onto the same service as /api/blockchain (docs/blockchain.md "Legacy routes").
 * Answers are the current ones; every answer carries Deprecation (RFC 9745), Sunset (RFC 8594)
 * and a Link to its successor.
 */
export const LEGACY_DEPRECATED_AT = new Date('2026-11-23T00:00:00Z')
export const LEGACY_SUNSET_AT = new Date('2027-11-23T00:00:00Z')

const tags = ['Blockchain legacy']
const writeErrors = errorRefs(400, 401, 403, 404, 503)
const readErrors = errorRefs(400, 404, 503)

const LegacyCredentialBody = Type.Object(
  {
    issuerDid: Did,
    credentialHash: S.Sha256Hex,
    credentialId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
)
const LegacySchemaBody = Type.Object(
  { issuerDid: Did, schemaId: Type.String({ minLength: 1, maxLength: 200 }), schemaHash: S.Sha256Hex },
  { additionalProperties: false },
)
const LegacyConsentBody = Type.Object(
  {
    userDid: Did,
    verifierDid: Did,
    purpose: S.Purpose,
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
)
const LegacyConsentRevokeBody = Type.Object(
  { userDid: Did, verifierDid: Did, purpose: S.Purpose },
  { additionalProperties: false },
)

export const blockchainLegacyRoutes: FastifyPluginAsyncTypebox<{
  blockchain: BlockchainService
  currentPrefix: string
  idempotency: IdempotencyService
}> = async (app, { blockchain, currentPrefix, idempotency }) => {
  const deprecate = (reply: FastifyReply, successor: string) => {
    reply.header('Deprecation', `@${Math.floor(LEGACY_DEPRECATED_AT.getTime() / 1000)}`)
    reply.header('Sunset', LEGACY_SUNSET_AT.toUTCString())
    reply.header('Link', `<${currentPrefix}${successor}>; rel="successor-version"`)
  }
  // Headers are set before the handler runs, so error answers carry them too.
  const on = (successor: string) => ({
    onRequest: async (_request: unknown, reply: FastifyReply) => deprecate(reply, successor),
  })
  const legacy = { deprecated: true, tags }

  app.post(
    '/register-credential',
    {
      ...on('/credential/register'),
      schema: {
        ...legacy,
        summary: 'Deprecated: POST /api/blockchain/credential/register',
        ...keyedWrite,
        body: LegacyCredentialBody,
        response: { 201: S.answer(S.CredentialAnchor), ...keyedWriteErrors },
      },
    },
    async (request, reply) => {
      const { issuerDid, credentialHash, credentialId } = request.body
      const { body: data } = await idempotency.run(
        keyedRequest(request),
        (claim) =>
          blockchain.registerCredential(
            request.auth!.did,
            { issuer_did: issuerDid, credential_hash: credentialHash, credential_id: credentialId },
            request.auth!.jti,
            claim,
          ),
        (resourceId) => blockchain.replayCredential(resourceId),
      )
      return reply.status(201).send({ success: true, message: 'Credential hash queued for anchoring', data })
    },
  )

  app.post(
    '/revoke-credential',
    {
      ...on('/credential/revoke'),
      schema: {
        ...legacy,
        summary: 'Deprecated: POST /api/blockchain/credential/revoke',
        body: LegacyCredentialBody,
        response: { 200: S.answer(S.CredentialAnchor), ...writeErrors },
      },
    },
    async (request) => {
      const { issuerDid, credentialHash, credentialId } = request.body
      return {
        success: true,
        message: 'Revocation queued',
        data: await blockchain.revokeCredential(
          request.auth!.did,
          { issuer_did: issuerDid, credential_hash: credentialHash, credential_id: credentialId },
          request.auth!.jti,
        ),
      }
    },
  )

  app.get(
    '/verify-credential/:issuerDid/:credentialHash',
    {
      ...on('/credential/check/:did/:credential_hash'),
      schema: {
        ...legacy,
        summary: 'Deprecated: GET /api/blockchain/credential/check/:did/:credential_hash',
        security: [],
        params: Type.Object({ issuerDid: Did, credentialHash: S.Sha256Hex }),
        response: { 200: S.answer(S.CredentialAnchor), ...readErrors },
      },
    },
    async (request) => ({
      success: true,
      data: await blockchain.checkCredential(request.params.issuerDid, request.params.credentialHash),
    }),
  )

  app.post(
    '/register-schema',
    {
      ...on('/schema/register'),
      schema: {
        ...legacy,
        summary: 'Deprecated: POST /api/blockchain/schema/register',
        ...keyedWrite,
        body: LegacySchemaBody,
        response: { 201: S.answer(S.SchemaAnchor), ...keyedWriteErrors },
      },
    },
    async (request, reply) => {
      const { issuerDid, schemaId, schemaHash } = request.body
      const { body: data } = await idempotency.run(
        keyedRequest(request),
        (claim) =>
          blockchain.registerSchema(
            request.auth!.did,
            { issuer_did: issuerDid, schema_id: schemaId, schema_hash: schemaHash },
            claim,
          ),
        (resourceId) => blockchain.replaySchema(resourceId),
      )
      return reply.status(201).send({ success: true, message: 'Schema queued for registration', data })
    },
  )

  app.post(
    '/grant-consent',
    {
      ...on('/consent/grant'),
      schema: {
        ...legacy,
        summary: 'Deprecated: POST /api/blockchain/consent/grant',
        ...keyedWrite,
        body: LegacyConsentBody,
        response: { 201: S.answer(S.ConsentAnchor), ...keyedWriteErrors },
      },
    },
    async (request, reply) => {
      const { userDid, verifierDid, purpose, expiresAt } = request.body
      const { body: data } = await idempotency.run(
        keyedRequest(request),
        (claim) =>
          blockchain.grantConsent(
            request.auth!.did,
            { user_did: userDid, verifier_did: verifierDid, purpose, expires_at: expiresAt },
            claim,
          ),
        (resourceId) => blockchain.replayConsent(resourceId),
      )
      return reply.status(201).send({ success: true, message: 'Consent grant queued', data })
    },
  )

  app.post(
    '/revoke-consent',
    {
      ...on('/consent/revoke'),
      schema: {
        ...legacy,
        summary: 'Deprecated: POST /api/blockchain/consent/revoke',
        body: LegacyConsentRevokeBody,
        response: { 200: S.answer(S.ConsentAnchor), ...writeErrors },
      },
    },
    async (request) => {
      const { userDid, verifierDid, purpose } = request.body
      return {
        success: true,
        message: 'Consent revocation queued',
        data: await blockchain.revokeConsent(request.auth!.did, {
          user_did: userDid,
          verifier_did: verifierDid,
          purpose,
        }),
      }
    },
  )

  app.get(
    '/check-consent/:userDid/:verifierDid/:purpose',
    {
      ...on('/consent/check/:user_did/:verifier_did/:purpose'),
      schema: {
        ...legacy,
        summary: 'Deprecated: GET /api/blockchain/consent/check/:user_did/:verifier_did/:purpose',
        security: [],
        params: Type.Object({ userDid: Did, verifierDid: Did, purpose: S.Purpose }),
        response: { 200: S.answer(S.ConsentAnchor), ...readErrors },
      },
    },
    async (request) => ({
      success: true,
      data: await blockchain.checkConsent(request.params.userDid, request.params.verifierDid, request.params.purpose),
    }),
  )

  app.get(
    '/network-info',
    {
      ...on('/status'),
      schema: {
        ...legacy,
        summary: 'Deprecated: GET /api/blockchain/status',
        security: [],
        response: { 200: S.answer(S.ChainStatus) },
      },
    },
    async () => ({ success: true, data: await blockchain.status() }),
  )
}
