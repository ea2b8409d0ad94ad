import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ForbiddenError, NotFoundError } from '../../errors.js'
import { Did } from '../auth/auth.schemas.js'
import { normalizeDid } from '../did/did-normalize.js'
import { errorRefs, PageQuery, pageResponse, paginate } from '../shared/route-helpers.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import type { Oid4vpFields, Oid4vpPort, PresentationRequestRow, PresetRow, VerifierRow } from './verifier.types.js'
import * as S from './verifier.schemas.js'
import type { VerifierService } from './verifier.service.js'

const errors = errorRefs(400, 401, 403, 404, 409)
const tags = ['Verifier']
const KEYED =
  'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201; another body 422; while the first is in progress 409.'
const iso = (d: Date) => new Date(d).toISOString()

/** Verifier profile, presentation requests and presets (spec: Verifier group). */
export const verifierRoutes: FastifyPluginAsyncTypebox<{
  verifiers: VerifierService
  oid4vp?: Oid4vpPort
  idempotency: IdempotencyService
}> = async (app, { verifiers, oid4vp, idempotency }) => {
  const requestView = (r: PresentationRequestRow) => ({
    ...r,
    status: verifiers.effectiveStatus(r),
    created_at: iso(r.created_at),
    expires_at: iso(r.expires_at),
  })
  const presetView = (p: PresetRow) => ({ ...p, created_at: iso(p.created_at) })
  const profileView = (v: VerifierRow) => ({ ...v, created_at: iso(v.created_at), updated_at: iso(v.updated_at) })
  const oid4vpView = (f: Oid4vpFields | undefined) => {
    if (!f) return {}
    const { authorization_request_uri, authorization_request_qr, request_uri, ...openid4vp } = f
    return { authorization_request_uri, authorization_request_qr, request_uri, openid4vp }
  }

  // The 201 body of a new request, also rebuilt from the stored request by an Idempotency-Key replay.
  const createdRequest = (created: PresentationRequestRow, openid4vp: Oid4vpFields | undefined) => ({
    success: true,
    message: 'Presentation request created',
    request: requestView(created),
    qr_code_data: verifiers.qrPayload(created),
    ...oid4vpView(openid4vp),
  })

  app.post(
    '',
    {
      schema: {
        tags,
        summary: 'Create the verifier profile of the authenticated DID',
        description: KEYED,
        headers: IdempotencyHeaders,
        body: S.VerifierBody,
        response: {
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), verifier: S.Verifier }),
          ...errors,
          ...errorRefs(422),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      if (request.body.did !== undefined && normalizeDid(request.body.did) !== did)
        throw new ForbiddenError('The body DID is not the authenticated DID')
      const { body: verifier } = await idempotency.run(
        keyedRequest(request),
        (claim) => verifiers.createProfile(did, request.body, claim),
        () => verifiers.profile(did),
      )
      return reply
        .status(201)
        .send({ success: true, message: 'Verifier profile created', verifier: profileView(verifier) })
    },
  )

  app.get(
    '/:did/profile',
    {
      schema: {
        tags,
        summary: 'The verifier profile',
        params: Type.Object({ did: Did }),
        response: { 200: Type.Object({ success: Type.Boolean(), verifier: S.Verifier }), ...errors },
      },
    },
    async (request) => ({ success: true, verifier: profileView(await verifiers.profile(request.auth!.did)) }),
  )

  app.post(
    '/requests',
    {
      schema: {
        tags,
        summary:
          'Create a presentation request (pending, with a nonce and its QR payload); from a preset with preset_id',
        description: KEYED,
        headers: IdempotencyHeaders,
        body: S.CreateRequestBody,
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            request: S.PresentationRequest,
            qr_code_data: Type.String(),
            ...S.Oid4vpFields,
          }),
          ...errors,
          ...errorRefs(422),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const {
        response_mode,
        client_id_prefix,
        request_uri_method,
        redirect_uri,
        trusted_roots,
        transaction_data,
        dcql_trusted_authorities,
        ...spec
      } = request.body
      const publish =
        oid4vp &&
        ((row: PresentationRequestRow) =>
          oid4vp.prepare(row, {
            response_mode,
            client_id_prefix,
            request_uri_method,
            redirect_uri,
            trusted_roots,
            transaction_data,
            dcql_trusted_authorities,
          }))
      const { body } = await idempotency.run(
        keyedRequest(request),
        async (claim) => {
          const { request: created, published } = await verifiers.createRequest(did, spec, publish, claim)
          return createdRequest(created, published)
        },
        async (requestId) => {
          const found = await verifiers.request(did, requestId)
          return createdRequest(found, await oid4vp?.describe(found))
        },
      )
      return reply.status(201).send(body)
    },
  )

  app.get(
    '/requests/:id',
    {
      schema: {
        tags,
        summary: "One of the verifier's presentation requests",
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            request: S.PresentationRequest,
            qr_code_data: Type.String(),
            answers: S.RequestAnswers,
            ...S.Oid4vpFields,
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { request: found, answers: rows } = await verifiers.requestWithAnswers(request.auth!.did, request.params.id)
      const answers = rows.map((a) => ({ ...a, at: iso(a.at) }))
      return {
        success: true,
        request: requestView(found),
        qr_code_data: verifiers.qrPayload(found),
        answers,
        ...oid4vpView(await oid4vp?.describe(found)),
      }
    },
  )

  app.post(
    '/requests/:id/response-code',
    {
      schema: {
        tags,
        summary:
          "Redeem, once, the response_code an accepted OpenID4VP answer's redirect_uri carried (OID4VP 1.0 §8.2): the presentation it stands for",
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        body: Type.Object(
          { response_code: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ success: Type.Boolean(), request_id: Type.String(), presentation_id: Type.String() }),
          ...errors,
        },
      },
    },
    async (request) => {
      const found = await verifiers.request(request.auth!.did, request.params.id)
      if (!oid4vp) throw new NotFoundError('OpenID4VP is not served here')
      const { presentation_id } = await oid4vp.redeemResponseCode(found, request.body.response_code)
      return { success: true, request_id: found.id, presentation_id }
    },
  )

  app.get(
    '/:did/requests',
    {
      schema: {
        tags,
        summary: "The verifier's presentation requests, paginated",
        params: Type.Object({ did: Did }),
        querystring: PageQuery,
        response: { 200: pageResponse(S.PresentationRequest), ...errors },
      },
    },
    async (request) => paginate(request.query, (page) => verifiers.listRequests(request.auth!.did, page), requestView),
  )

  app.post(
    '/:did/presets',
    {
      schema: {
        tags,
        summary: 'Save a request definition to create requests from',
        description: KEYED,
        params: Type.Object({ did: Did }),
        headers: IdempotencyHeaders,
        body: S.PresetBody,
        response: {
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), preset: S.Preset }),
          ...errors,
          ...errorRefs(422),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body: preset } = await idempotency.run(
        keyedRequest(request),
        (claim) => verifiers.createPreset(did, request.body, claim),
        (presetId) => verifiers.preset(did, presetId),
      )
      return reply.status(201).send({ success: true, message: 'Preset saved', preset: presetView(preset) })
    },
  )

  app.get(
    '/:did/presets',
    {
      schema: {
        tags,
        summary: "The verifier's presets, paginated",
        params: Type.Object({ did: Did }),
        querystring: PageQuery,
        response: { 200: pageResponse(S.Preset), ...errors },
      },
    },
    async (request) => paginate(request.query, (page) => verifiers.listPresets(request.auth!.did, page), presetView),
  )
}
