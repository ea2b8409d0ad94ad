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
export const schemaDocumentRoutes: FastifyPluginAsyncTypebox<{
  issuers: IssuerService
  publicBaseUrl: string
}> = async (app, { issuers, publicBaseUrl }) => {
  // Short caching: an issuer may still edit a schema's attributes.
  const headers = { 'cache-control': 'public, max-age=300' }

  // One context per data model: terms the credential's own context does not define (VCDM 2.0 for vc+jwt, 1.1 for jwt_vc_json).
  const contexts = [
    { path: 'context.jsonld', model: 'VCDM 2.0', build: schemaContext },
    {
      path: 'context-v1.jsonld',
      model: 'VCDM 1.1 (jwt_vc_json), named after the VCDM 1.1 and status contexts',
      build: schemaContextV1,
    },
  ]
  for (const { path, model, build } of contexts) {
    app.get(
      `/:schema_id/${path}`,
      {
        schema: {
          tags,
          summary: `A schema's JSON-LD 1.1 context for ${model} credentials (a typed term per attribute; \`type\`: the credential type to define)`,
          security: [],
          params: Params,
          querystring: Type.Object({ type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
          response: { 200: Document, ...errorRefs(400, 404) },
        },
      },
      async (request, reply) => {
        const schema = await issuers.publicSchema(request.params.schema_id)
        return reply
          .headers(headers)
          .type('application/ld+json')
          .send(build(schema, publicBaseUrl, request.query.type))
      },
    )
  }

  app.get(
    '/:schema_id/json-schema.json',
    {
      schema: {
        tags,
        summary: "A schema's JSON Schema (2020-12) for VCDM 2.0 and 1.1 credentials (`credentialSchema`)",
        security: [],
        params: Params,
        response: { 200: Document, ...errorRefs(400, 404) },
      },
    },
    async (request, reply) => {
      const schema = await issuers.publicSchema(request.params.schema_id)
      return reply.headers(headers).type('application/schema+json').send(schemaJsonSchema(schema, publicBaseUrl))
    },
  )
}
