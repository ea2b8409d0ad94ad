import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, PageQuery, pageResponse, paginate, withIsoDates } from '../shared/route-helpers.js'
import type { TemplateService } from './templates.service.js'
import { FreeFormObject } from '../shared/free-form-json.js'
import { CredentialFormatId } from './issuance.schemas.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'

const errors = errorRefs(400, 401, 403, 404, 409)
const tags = ['Issuer']
const DidParams = Type.Object({ did: Did })
const TemplateParams = Type.Object({ did: Did, template_id: Type.String({ minLength: 1, maxLength: 100 }) })

const TemplateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    credential_type: Type.String({ minLength: 1, maxLength: 100 }),
    schema_id: Type.String({ minLength: 1, maxLength: 100 }),
    fixed_attributes: Type.Optional(FreeFormObject({ maxProperties: 100 })),
    validity_days: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 36500 }), Type.Null()])),
    format: Type.Optional(
      Type.Union([CredentialFormatId, Type.Null()], {
        description:
          'A format every issuance from the template is in (null: any, the default unless the issuance names one)',
      }),
    ),
  },
  { additionalProperties: false },
)
const TemplateUpdateBody = Type.Partial(TemplateBody, { additionalProperties: false, minProperties: 1 })

const Template = Type.Object({
  id: Type.String(),
  issuer_did: Type.String(),
  name: Type.String(),
  description: Type.String(),
  credential_type: Type.String(),
  schema_id: Type.String(),
  fixed_attributes: Type.Record(Type.String(), Type.Unknown()),
  validity_days: Type.Union([Type.Integer(), Type.Null()]),
  format: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
})
const One = Type.Object({ success: Type.Boolean(), message: Type.Optional(Type.String()), template: Template })

export const templateRoutes: FastifyPluginAsyncTypebox<{
  templates: TemplateService
  idempotency: IdempotencyService
}> = async (app, { templates, idempotency }) => {
  app.post(
    '/:did/templates',
    {
      schema: {
        tags,
        summary: 'Create a template that pre-fills issuance',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201.',
        params: DidParams,
        headers: IdempotencyHeaders,
        body: TemplateBody,
        response: { 201: One, ...errors, ...errorRefs(422) },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body: template } = await idempotency.run(
        keyedRequest(request),
        (claim) => templates.create(did, request.body, claim),
        (templateId) => templates.get(did, templateId),
      )
      return reply.status(201).send({ success: true, message: 'Template created', template: withIsoDates(template) })
    },
  )

  app.get(
    '/:did/templates',
    {
      schema: {
        tags,
        summary: "The issuer's templates, paginated",
        params: DidParams,
        querystring: PageQuery,
        response: { 200: pageResponse(Template), ...errors },
      },
    },
    async (request) => paginate(request.query, (page) => templates.list(request.auth!.did, page), withIsoDates),
  )

  app.get(
    '/:did/templates/:template_id',
    {
      schema: { tags, summary: 'One template', params: TemplateParams, response: { 200: One, ...errors } },
    },
    async (request) => ({
      success: true,
      template: withIsoDates(await templates.get(request.auth!.did, request.params.template_id)),
    }),
  )

  app.put(
    '/:did/templates/:template_id',
    {
      schema: {
        tags,
        summary: 'Update a template',
        params: TemplateParams,
        body: TemplateUpdateBody,
        response: { 200: One, ...errors },
      },
    },
    async (request) => ({
      success: true,
      message: 'Template updated',
      template: withIsoDates(await templates.update(request.auth!.did, request.params.template_id, request.body)),
    }),
  )

  app.delete(
    '/:did/templates/:template_id',
    {
      schema: {
        tags,
        summary: 'Delete a template',
        params: TemplateParams,
        response: { 200: Type.Object({ success: Type.Boolean(), message: Type.String() }), ...errors },
      },
    },
    async (request) => {
      await templates.delete(request.auth!.did, request.params.template_id)
      return { success: true, message: 'Template deleted' }
    },
  )
}
