import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorRefs } from '../shared/route-helpers.js'
import type { IssuerService } from './issuer.service.js'
import { schemaContext, schemaContextV1, schemaJsonSchema } from './schema-documents.js'

const tags = ['Schemas']
const Document = Type.Record(Type.String(), Type.Unknown())
const Params = Type.Object({ schema_id: Type.String({ minLength: 1, maxLength: 100 }) })

/**
 * Public: the documents a credential names, for anyone to process it without this service: the
 * schema's JSON-LD context (`@context`) for VCDM 2.0 (`vc+jwt`, Data Integrity) and for VCDM 1.1
 * (`jwt_vc_json`), and its JSON Schema (`credentialSchema`) for both. Made from the schema record;
 * a schema holds no personal data.
 */
export const schemaDocumentRoutes: FastifyPluginAsyncTypebox<{ issuers: IssuerService; publicBaseUrl: string }> = async (app, { issuers, publicBaseUrl }) => {
  // Short caching: an issuer may still edit a schema's attributes.
  const headers = { 'cache-control': 'public, max-age=300' }

  app.get('/:schema_id/context.jsonld', {
    schema: {
      tags,
      summary: "A schema's JSON-LD 1.1 context for VCDM 2.0 credentials (a typed term per attribute; `type`: the credential type to define)",
      security: [],
      params: Params,
      querystring: Type.Object({ type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
      response: { 200: Document, ...errorRefs(400, 404) },
    },
  }, async (request, reply) => {
    const schema = await issuers.publicSchema(request.params.schema_id)
    return reply.headers(headers).type('application/ld+json').send(schemaContext(schema, publicBaseUrl, request.query.type))
  })

  app.get('/:schema_id/context-v1.jsonld', {
    schema: {
      tags,
      summary: "A schema's JSON-LD 1.1 context for VCDM 1.1 credentials (jwt_vc_json), named after the VCDM 1.1 and status contexts",
      security: [],
      params: Params,
      querystring: Type.Object({ type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
      response: { 200: Document, ...errorRefs(400, 404) },
    },
  }, async (request, reply) => {
    const schema = await issuers.publicSchema(request.params.schema_id)
    return reply.headers(headers).type('application/ld+json').send(schemaContextV1(schema, publicBaseUrl, request.query.type))
  })

  app.get('/:schema_id/json-schema.json', {
    schema: {
      tags,
      summary: "A schema's JSON Schema (2020-12) for VCDM 2.0 and 1.1 credentials (`credentialSchema`)",
      security: [],
      params: Params,
      response: { 200: Document, ...errorRefs(400, 404) },
    },
  }, async (request, reply) => {
    const schema = await issuers.publicSchema(request.params.schema_id)
    return reply.headers(headers).type('application/schema+json').send(schemaJsonSchema(schema, publicBaseUrl))
  })
}
