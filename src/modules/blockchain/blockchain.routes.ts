import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import { errorRefs } from '../shared/route-helpers.js'
import type { BlockchainService } from './blockchain.service.js'
import * as S from './blockchain.schemas.js'

const tags = ['Blockchain']
const writeErrors = errorRefs(400, 401, 403, 404, 503)
const readErrors = errorRefs(400, 404, 503)
/** The anchoring writes that queue something new take an Idempotency-Key (docs/idempotency.md). */
export const keyedWrite = {
  description:
    'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (the anchoring as it stands now) and queues nothing; another body 422; while the first is in progress 409.',
  headers: IdempotencyHeaders,
}
export const keyedWriteErrors = { ...writeErrors, ...errorRefs(409, 422) }

/**
 * Spec group "Blockchain" (/api/blockchain). Writes need a token whose DID is the acting DID of
 * the body and answer at once: the transaction goes out from the durable outbox, and the check
 * routes show it as queued, sent, then mined. Without a configured chain they answer 503.
 */
export const blockchainRoutes: FastifyPluginAsyncTypebox<{
  blockchain: BlockchainService
  idempotency: IdempotencyService
}> = async (app, { blockchain, idempotency }) => {
  app.post(
    '/credential/register',
    {
      schema: {
        tags,
        summary: 'Anchor a credential hash (queued for the next Merkle batch)',
        ...keyedWrite,
        body: S.CredentialBody,
        response: { 201: S.answer(S.CredentialAnchor), ...keyedWriteErrors },
      },
    },
    async (request, reply) => {
      const { body: data } = await idempotency.run(
        keyedRequest(request),
        (claim) => blockchain.registerCredential(request.auth!.did, request.body, request.auth!.jti, claim),
        (resourceId) => blockchain.replayCredential(resourceId),
      )
      return reply.status(201).send({ success: true, message: 'Credential hash queued for anchoring', data })
    },
  )

  app.post(
    '/credential/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke an anchored credential hash on chain',
        body: S.CredentialBody,
        response: { 200: S.answer(S.CredentialAnchor), ...writeErrors },
      },
    },
    async (request) => ({
      success: true,
      message: 'Revocation queued',
      data: await blockchain.revokeCredential(request.auth!.did, request.body, request.auth!.jti),
    }),
  )

  app.get(
    '/credential/check/:did/:credential_hash',
    {
      schema: {
        tags,
        summary: 'Anchoring and revocation state of a credential hash, with its Merkle inclusion proof',
        security: [],
        params: S.CredentialCheckParams,
        response: { 200: S.answer(S.CredentialAnchor), ...readErrors },
      },
    },
    async (request) => ({
      success: true,
      data: await blockchain.checkCredential(request.params.did, request.params.credential_hash),
    }),
  )

  app.post(
    '/schema/register',
    {
      schema: {
        tags,
        summary: 'Register a schema version (its content hash) on chain',
        ...keyedWrite,
        body: S.SchemaBody,
        response: { 201: S.answer(S.SchemaAnchor), ...keyedWriteErrors },
      },
    },
    async (request, reply) => {
      const { body: data } = await idempotency.run(
        keyedRequest(request),
        (claim) => blockchain.registerSchema(request.auth!.did, request.body, claim),
        (resourceId) => blockchain.replaySchema(resourceId),
      )
      return reply.status(201).send({ success: true, message: 'Schema queued for registration', data })
    },
  )

  app.get(
    '/schema/check/:schema_id',
    {
      schema: {
        tags,
        summary: 'The latest registered version of a schema, read from the chain',
        security: [],
        params: S.SchemaCheckParams,
        response: { 200: S.answer(S.SchemaOnChain), ...readErrors },
      },
    },
    async (request) => ({ success: true, data: await blockchain.checkSchema(request.params.schema_id) }),
  )

  app.post(
    '/consent/grant',
    {
      schema: {
        tags,
        summary: "Record the holder's consent on chain (as an opaque key)",
        ...keyedWrite,
        body: S.ConsentBody,
        response: { 201: S.answer(S.ConsentAnchor), ...keyedWriteErrors },
      },
    },
    async (request, reply) => {
      const { body: data } = await idempotency.run(
        keyedRequest(request),
        (claim) => blockchain.grantConsent(request.auth!.did, request.body, claim),
        (resourceId) => blockchain.replayConsent(resourceId),
      )
      return reply.status(201).send({ success: true, message: 'Consent grant queued', data })
    },
  )

  app.post(
    '/consent/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke a consent on chain',
        body: S.ConsentRevokeBody,
        response: { 200: S.answer(S.ConsentAnchor), ...writeErrors },
      },
    },
    async (request) => ({
      success: true,
      message: 'Consent revocation queued',
      data: await blockchain.revokeConsent(request.auth!.did, request.body),
    }),
  )

  app.get(
    '/consent/check/:user_did/:verifier_did/:purpose',
    {
      schema: {
        tags,
        summary: 'Whether a consent is granted, revoked or expired on chain',
        security: [],
        params: S.ConsentCheckParams,
        response: { 200: S.answer(S.ConsentAnchor), ...readErrors },
      },
    },
    async (request) => ({
      success: true,
      data: await blockchain.checkConsent(request.params.user_did, request.params.verifier_did, request.params.purpose),
    }),
  )

  app.get(
    '/status',
    {
      schema: {
        tags,
        summary: 'Chain configuration, reachability and the anchoring backlog',
        security: [],
        response: { 200: S.answer(S.ChainStatus) },
      },
    },
    async () => ({ success: true, data: await blockchain.status() }),
  )
}
