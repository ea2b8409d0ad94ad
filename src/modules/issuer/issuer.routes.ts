import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ForbiddenError } from '../../errors.js'
import { Did, ProofBody } from '../auth/auth.schemas.js'
import { normalizeDid } from '../did/did-normalize.js'
import { errorRefs, PageQuery, pageResponse, paginate, withIsoDates } from '../shared/route-helpers.js'
import * as S from './issuer.schemas.js'
import type { IssuerService } from './issuer.service.js'
import type { SigningMethodService } from './signing-method.service.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'

const errors = errorRefs(400, 401, 403, 404, 409)
const tags = ['Issuer']
const DidParams = Type.Object({ did: Did })
const SchemaParams = Type.Object({ did: Did, schema_id: Type.String({ minLength: 1, maxLength: 100 }) })

/** Issuer profile and schemas (spec: Issuer group). The `:did` is the caller's own (auth hook). */
export const issuerRoutes: FastifyPluginAsyncTypebox<{
  issuers: IssuerService
  signing: SigningMethodService
  idempotency: IdempotencyService
}> = async (app, { issuers, signing, idempotency }) => {
  app.post(
    '',
    {
      schema: {
        tags,
        summary: 'Create the issuer profile of the authenticated DID',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (without a key, a repeat answers 409).',
        headers: IdempotencyHeaders,
        body: S.IssuerBody,
        response: {
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), issuer: S.Issuer }),
          ...errors,
          ...errorRefs(422),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      if (request.body.did !== undefined && normalizeDid(request.body.did) !== did)
        throw new ForbiddenError('The body DID is not the authenticated DID')
      const { body: issuer } = await idempotency.run(
        keyedRequest(request),
        (claim) => issuers.createProfile(did, request.body, claim),
        () => issuers.profile(did),
      )
      return reply.status(201).send({ success: true, message: 'Issuer profile created', issuer: withIsoDates(issuer) })
    },
  )

  app.get(
    '/:did',
    {
      schema: {
        tags,
        summary: 'The issuer profile',
        params: DidParams,
        response: { 200: Type.Object({ success: Type.Boolean(), issuer: S.Issuer }), ...errors },
      },
    },
    async (request) => ({ success: true, issuer: withIsoDates(await issuers.profile(request.auth!.did)) }),
  )

  app.put(
    '/:did/update',
    {
      schema: {
        tags,
        summary: 'Update the issuer profile',
        params: DidParams,
        body: S.IssuerUpdateBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), issuer: S.Issuer }),
          ...errors,
        },
      },
    },
    async (request) => ({
      success: true,
      message: 'Issuer profile updated',
      issuer: withIsoDates(await issuers.updateProfile(request.auth!.did, request.body)),
    }),
  )

  app.get(
    '/:did/signing',
    {
      schema: {
        tags,
        summary: 'The DIDs this issuer signs credentials as (DESIGN.md "Issuer identity")',
        params: DidParams,
        response: { 200: Type.Composite([Type.Object({ success: Type.Boolean() }), S.SigningView]), ...errors },
      },
    },
    async (request) => ({ success: true, ...(await signing.describe(request.auth!.did)) }),
  )

  app.put(
    '/:did/signing',
    {
      schema: {
        tags,
        summary:
          "Choose how new credentials are signed: a did:web hosted here, service-generated did:keys, or the issuer's own did:web once its document lists the service's keys (422 lists what to publish). Needs step-up when required",
        params: DidParams,
        body: S.SigningBody,
        response: {
          200: Type.Composite([Type.Object({ success: Type.Boolean(), message: Type.String() }), S.SigningView]),
          ...errorRefs(400, 401, 403, 404, 409, 422),
        },
      },
    },
    async (request) => ({
      success: true,
      message: 'Signing method updated',
      ...(await signing.change(request.auth!.did, request.body.signing_did_method, request.auth!.jti)),
    }),
  )

  app.post(
    '/:did/set-auth',
    {
      schema: {
        tags,
        summary:
          'Require (or not) a fresh step-up signature for sensitive issuer acts; needs one itself (challenge purpose "step-up")',
        params: DidParams,
        body: Type.Composite([ProofBody, Type.Object({ require_step_up: Type.Boolean() })], {
          additionalProperties: false,
        }),
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), issuer: S.Issuer }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { require_step_up, ...proof } = request.body
      const issuer = await issuers.setStepUp(request.auth!.did, require_step_up, proof)
      return {
        success: true,
        message: require_step_up ? 'Step-up required' : 'Step-up not required',
        issuer: withIsoDates(issuer),
      }
    },
  )

  app.post(
    '/:did/authenticate',
    {
      schema: {
        tags,
        summary:
          'Step-up: a fresh signature of a "step-up" challenge with the issuer DID key; it counts for this session (token) only, until expires_at',
        params: DidParams,
        body: ProofBody,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            issuer_did: Type.String(),
            authenticated_at: Type.String({ format: 'date-time' }),
            expires_at: Type.String({ format: 'date-time' }),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { at, expiresAt } = await issuers.authenticate(request.auth!, request.body)
      return {
        success: true,
        message: 'Issuer key control confirmed',
        issuer_did: request.auth!.did,
        authenticated_at: at.toISOString(),
        expires_at: expiresAt.toISOString(),
      }
    },
  )

  app.post(
    '/:did/schemas',
    {
      schema: {
        tags,
        summary: 'Define a credential schema',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201.',
        params: DidParams,
        headers: IdempotencyHeaders,
        body: S.SchemaBody,
        response: {
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), schema: S.Schema }),
          ...errors,
          ...errorRefs(422),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body: schema } = await idempotency.run(
        keyedRequest(request),
        (claim) => issuers.createSchema(did, request.body, claim),
        (schemaId) => issuers.schema(did, schemaId),
      )
      return reply.status(201).send({ success: true, message: 'Schema created', schema: withIsoDates(schema) })
    },
  )

  app.get(
    '/:did/schemas',
    {
      schema: {
        tags,
        summary: "The issuer's schemas, paginated",
        params: DidParams,
        querystring: PageQuery,
        response: { 200: pageResponse(S.Schema), ...errors },
      },
    },
    async (request) => paginate(request.query, (page) => issuers.listSchemas(request.auth!.did, page), withIsoDates),
  )

  app.get(
    '/:did/schemas/:schema_id',
    {
      schema: {
        tags,
        summary: 'One schema',
        params: SchemaParams,
        response: { 200: Type.Object({ success: Type.Boolean(), schema: S.Schema }), ...errors },
      },
    },
    async (request) => ({
      success: true,
      schema: withIsoDates(await issuers.schema(request.auth!.did, request.params.schema_id)),
    }),
  )

  app.put(
    '/:did/schemas/:schema_id',
    {
      schema: {
        tags,
        summary: 'Update a schema (republished: new ipfs_hash)',
        params: SchemaParams,
        body: S.SchemaUpdateBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), schema: S.Schema }),
          ...errors,
        },
      },
    },
    async (request) => ({
      success: true,
      message: 'Schema updated',
      schema: withIsoDates(await issuers.updateSchema(request.auth!.did, request.params.schema_id, request.body)),
    }),
  )

  app.delete(
    '/:did/schemas/:schema_id',
    {
      schema: {
        tags,
        summary: 'Delete a schema',
        params: SchemaParams,
        response: { 200: Type.Object({ success: Type.Boolean(), message: Type.String() }), ...errors },
      },
    },
    async (request) => {
      await issuers.deleteSchema(request.auth!.did, request.params.schema_id)
      return { success: true, message: 'Schema deleted' }
    },
  )
}
